/**
 * The dashboard's terminal sockets (WebSocket), `ws://<host>:<terminalPort>/terminal/<session>?cols=&rows=[&mode=read]`:
 * every session's terminal, whatever its runtime, through that runtime's `attach` (terminal-viewer.ts). The tmux
 * runtime gives each viewer a client of its own size; the `process` runtime shares its pty, replaying what it
 * printed so far. `directTerminalPort` serves the same sockets, for pages and scripts made before there was one
 * port (deprecated). A socket needs the dashboard token and, from a browser, the dashboard's Origin; otherwise
 * the upgrade is answered 401 or 403.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import { createServer, type IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import { WebSocketServer } from "ws"
import { SessionStore } from "../store/SessionStore.ts"
import { originAllowed, requestToken } from "./auth.ts"
import { trackConnections } from "./connections.ts"
import { ListenFailed, listenReason } from "./listen-error.ts"
import { parseViewer, serveViewer, type TerminalOf } from "./terminal-viewer.ts"
import { sameToken } from "./token.ts"

export { CLOSE_ENDED, CLOSE_NO_TERMINAL, CLOSE_TOO_SLOW, parseViewer, type TerminalOf, type Viewer } from "./terminal-viewer.ts"

export interface TerminalsOptions {
  readonly host: string
  readonly port: number
  /** Deprecated: the same sockets on a second port. */
  readonly directPort: number
  readonly dashboardPort: number
  readonly token: string
  readonly terminalOf: TerminalOf
}

/** Answers an upgrade it will not make, and closes the socket once the answer is out (not when the client likes). */
const refuse = (raw: Duplex, status: 401 | 403 | 404, text: string) => {
  raw.once("finish", () => raw.destroy())
  raw.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`)
}

/** One terminal socket server, listening on `port` while the scope lives; closing it ends every viewer. */
const listen = Effect.fnUntraced(function*(options: TerminalsOptions, port: number, option: string) {
  const store = yield* SessionStore
  const run = yield* FiberSet.makeRuntime()
  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false })
  const server = createServer((_, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("orch terminal socket: connect with a WebSocket")
  })
  const connections = trackConnections(server)
  server.on("upgrade", (request: IncomingMessage, raw: Duplex) => {
    const token = requestToken({ url: request.url ?? "/", authorization: request.headers.authorization, cookie: request.headers.cookie })
    if (!sameToken(token, options.token)) return refuse(raw, 401, "Unauthorized")
    if (!originAllowed(request.headers.origin, request.headers.host, options.dashboardPort)) return refuse(raw, 403, "Forbidden")
    const viewer = parseViewer(request.url ?? "/")
    if (viewer === undefined) return refuse(raw, 404, "Not Found")
    sockets.handleUpgrade(request, raw, Buffer.alloc(0), (socket) => {
      const fiber = run(serveViewer(socket, viewer, store, options.terminalOf))
      socket.once("close", () => fiber.interruptUnsafe())
    })
  })
  yield* Effect.acquireRelease(
    Effect.callback<void, ListenFailed>((resume) => {
      server.once(
        "error",
        (error: NodeJS.ErrnoException) => resume(Effect.fail(new ListenFailed({ option, host: options.host, port, reason: listenReason(error, option) })))
      )
      server.listen(port, options.host, () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        for (const socket of sockets.clients) socket.terminate()
        server.close(() => resume(Effect.void))
        // Every connection, upgraded or not: `close` waits for them all.
        connections.closeAll()
      })
  )
})

/** The terminal sockets, listening while the layer lives. */
export const terminalsLayer = (options: TerminalsOptions) =>
  Layer.effectDiscard(Effect.gen(function*() {
    yield* listen(options, options.port, "terminalPort")
    yield* listen(options, options.directPort, "directTerminalPort")
  }))
