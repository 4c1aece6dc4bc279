/**
 * The dashboard's terminal sockets (WebSocket), `ws://<host>:<port>/terminal/<session>?cols=&rows=[&mode=read]`:
 * - on `terminalPort`, each viewer of a tmux (`multiplexer`) session gets its own pty running `tmux attach`,
 *   sized to that viewer, so a phone and a laptop each see a whole screen of their own size; the window
 *   follows whoever typed last (`window-size latest`), and read-only viewers (`-r`) never resize it;
 * - on `directTerminalPort`, viewers of a `process`-runtime session share the supervisor's own pty: a viewer
 *   gets the output so far, then live output.
 * The client sends JSON: `{"type":"input","data":…}` and `{"type":"resize","cols":…,"rows":…}`; the server
 * sends the terminal's output as text. A socket needs the dashboard token and, from a browser, the dashboard's
 * Origin; otherwise the upgrade is answered 401 or 403. Close codes: 4404 no live terminal, 4410 it ended,
 * 4408 the viewer fell too far behind a shared terminal (it reconnects).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer, type IncomingMessage } from "node:http"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import type { Duplex } from "node:stream"
import type { IPty } from "@lydell/node-pty"
import { WebSocketServer, type RawData, type WebSocket } from "ws"
import type { SessionRecord } from "../domain/session.ts"
import type { ProcessTerminal } from "../plugins/runtime/process.ts"
import { SessionStore, type SessionStoreShape } from "../store/SessionStore.ts"
import { originAllowed, requestToken } from "./auth.ts"
import { ListenFailed, listenReason } from "./listen-error.ts"
import { isLive } from "./board.ts"
import { sameToken } from "./token.ts"

export const CLOSE_NO_TERMINAL = 4404
export const CLOSE_ENDED = 4410
export const CLOSE_TOO_SLOW = 4408
/** A viewer that stops reading: its pty is paused past this much unsent output, and resumed below half. */
const HIGH_WATER_BYTES = 1024 * 1024

export interface TerminalsOptions {
  readonly host: string
  /** tmux viewers. */
  readonly port: number
  /** `process`-runtime viewers. */
  readonly directPort: number
  readonly dashboardPort: number
  readonly token: string
  /** A `process`-runtime session's pty in this supervisor (ProjectPlugins owns them). */
  readonly processTerminal: (sessionId: string) => ProcessTerminal | undefined
}

export interface Viewer {
  readonly sessionId: string
  readonly cols: number
  readonly rows: number
  readonly readOnly: boolean
}

const clamp = (value: string | null, fallback: number, max: number) => {
  const n = Number(value)
  return Number.isInteger(n) && n >= 2 ? Math.min(n, max) : fallback
}

/** The viewer a socket URL asks for; undefined for any other path. */
export const parseViewer = (url: string): Viewer | undefined => {
  const parsed = new URL(url, "http://x")
  const match = /^\/terminal\/([^/]+)$/.exec(parsed.pathname)
  if (match === null) return undefined
  return {
    sessionId: decodeURIComponent(match[1]!),
    cols: clamp(parsed.searchParams.get("cols"), 80, 1000),
    rows: clamp(parsed.searchParams.get("rows"), 24, 500),
    readOnly: parsed.searchParams.get("mode") === "read"
  }
}

type ClientMessage = { readonly type: "input"; readonly data: string } | { readonly type: "resize"; readonly cols: number; readonly rows: number }

const parseMessage = (data: RawData): ClientMessage | undefined => {
  try {
    const value = JSON.parse(data.toString()) as Record<string, unknown>
    if (value.type === "input" && typeof value.data === "string") return { type: "input", data: value.data }
    if (value.type === "resize" && Number.isInteger(value.cols) && Number.isInteger(value.rows) && (value.cols as number) > 1 && (value.rows as number) > 1) {
      return { type: "resize", cols: Math.min(value.cols as number, 1000), rows: Math.min(value.rows as number, 500) }
    }
  } catch {
    // not JSON: ignored
  }
  return undefined
}

/** Sends output to a viewer, pausing the source while the viewer is too far behind. */
const sender = (socket: WebSocket, pause: () => void, resume: () => void) => {
  let pending = 0
  let paused = false
  return (data: string) => {
    if (socket.readyState !== socket.OPEN) return
    const size = Buffer.byteLength(data)
    pending += size
    if (!paused && pending > HIGH_WATER_BYTES) {
      paused = true
      pause()
    }
    socket.send(data, () => {
      pending -= size
      if (paused && pending < HIGH_WATER_BYTES / 2) {
        paused = false
        resume()
      }
    })
  }
}

/** Closes with a reason cut to what a close frame holds (123 bytes); closing twice is harmless. */
const close = (socket: WebSocket, code: number, reason: string) => {
  let cut = reason
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1)
  try {
    socket.close(code, cut)
  } catch {
    socket.terminate()
  }
}

const loadPty = () => createRequire(import.meta.url)("@lydell/node-pty") as typeof import("@lydell/node-pty")

/** A tmux viewer: its own `tmux attach` client in a pty of the viewer's size. */
const attachTmux = (socket: WebSocket, viewer: Viewer, record: SessionRecord) => {
  const tmuxSocket = record.runtime?.data.socket
  if (record.runtime?.plugin !== "multiplexer" || typeof tmuxSocket !== "string") {
    return close(socket, CLOSE_NO_TERMINAL, "this session's terminal is not a tmux session")
  }
  const target = `=${record.runtime.id}`
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== "TMUX" && key !== "TMUX_PANE") env[key] = value
  let pty: IPty
  try {
    pty = loadPty().spawn("tmux", [
      "-u", "-S", tmuxSocket,
      "set-option", "-w", "-t", `${target}:`, "window-size", "latest", ";",
      "attach-session", ...(viewer.readOnly ? ["-r"] : []), "-t", target
    ], { name: "xterm-256color", cols: viewer.cols, rows: viewer.rows, cwd: homedir(), env: { ...env, TERM: "xterm-256color" } })
  } catch (error) {
    return close(socket, CLOSE_NO_TERMINAL, `cannot start tmux: ${error instanceof Error ? error.message : String(error)}`)
  }
  const send = sender(socket, () => pty.pause(), () => pty.resume())
  let last = ""
  pty.onData((data) => {
    last = (last + data).slice(-200)
    send(data)
  })
  pty.onExit(() => {
    const said = last.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "").trim().split("\n").at(-1)?.trim() ?? ""
    close(socket, CLOSE_ENDED, said || "the terminal ended")
  })
  socket.on("message", (data) => {
    const message = parseMessage(data)
    if (message?.type === "input" && !viewer.readOnly) pty.write(message.data)
    if (message?.type === "resize") pty.resize(message.cols, message.rows)
  })
  socket.on("close", () => {
    try {
      pty.kill()
    } catch {
      // already gone
    }
  })
}

/** A direct viewer of a `process` session: the supervisor's pty, shared with every other viewer. */
const attachDirect = (terminalOf: TerminalsOptions["processTerminal"]) => (socket: WebSocket, viewer: Viewer, record: SessionRecord) => {
  const terminal = record.runtime?.plugin === "process" ? terminalOf(record.runtime.id) : undefined
  if (terminal === undefined || terminal.exited()) {
    return close(socket, CLOSE_NO_TERMINAL, "this session has no live terminal in this supervisor")
  }
  // The pty is shared, so it cannot wait for one slow viewer: that viewer is dropped, and reconnects to a replay.
  const send = sender(socket, () => close(socket, CLOSE_TOO_SLOW, "fell behind the terminal's output"), () => {})
  send(terminal.replay())
  if (!viewer.readOnly) terminal.resize(viewer.cols, viewer.rows)
  const offData = terminal.onData(send)
  const offExit = terminal.onExit(() => close(socket, CLOSE_ENDED, "the agent's process ended"))
  socket.on("message", (data) => {
    const message = parseMessage(data)
    if (viewer.readOnly || message === undefined) return
    if (message.type === "input") terminal.write(message.data)
    else terminal.resize(message.cols, message.rows)
  })
  socket.on("close", () => {
    offData()
    offExit()
  })
}

const refuse = (raw: Duplex, status: 401 | 403 | 404, text: string) => {
  raw.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`)
}

/** One terminal socket server: checks each upgrade, then hands the socket to `attach` with the session's record. */
const terminalServer = (
  options: TerminalsOptions,
  store: SessionStoreShape,
  attach: (socket: WebSocket, viewer: Viewer, record: SessionRecord) => void
) => {
  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false })
  const server = createServer((_, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("orch terminal socket: connect with a WebSocket")
  })
  server.on("upgrade", (request: IncomingMessage, raw: Duplex) => {
    const token = requestToken({ url: request.url ?? "/", authorization: request.headers.authorization, cookie: request.headers.cookie })
    if (!sameToken(token, options.token)) return refuse(raw, 401, "Unauthorized")
    if (!originAllowed(request.headers.origin, request.headers.host, options.dashboardPort)) return refuse(raw, 403, "Forbidden")
    const viewer = parseViewer(request.url ?? "/")
    if (viewer === undefined) return refuse(raw, 404, "Not Found")
    sockets.handleUpgrade(request, raw, Buffer.alloc(0), (socket) => {
      Effect.runPromise(Effect.option(store.read(viewer.sessionId))).then((found) => {
        if (found._tag === "None") return close(socket, CLOSE_NO_TERMINAL, `no session ${viewer.sessionId}`)
        const record = found.value
        if (!isLive(record) || record.runtime === null) return close(socket, CLOSE_NO_TERMINAL, `${record.sessionId} is not running (${record.status})`)
        attach(socket, viewer, record)
      }).catch(() => socket.terminate())
    })
  })
  return { server, viewers: sockets.clients }
}

const listen = (
  { server, viewers }: ReturnType<typeof terminalServer>,
  port: number,
  host: string,
  option: string
) =>
  Effect.acquireRelease(
    Effect.callback<void, ListenFailed>((resume) => {
      server.once("error", (error: NodeJS.ErrnoException) => resume(Effect.fail(new ListenFailed({ option, host, port, reason: listenReason(error, option) }))))
      server.listen(port, host, () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        for (const viewer of viewers) viewer.terminate()
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )

/** Both terminal sockets, listening while the layer lives; closing them ends every viewer's `tmux attach`. */
export const terminalsLayer = (options: TerminalsOptions) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const store = yield* SessionStore
    yield* listen(terminalServer(options, store, attachTmux), options.port, options.host, "terminalPort")
    yield* listen(terminalServer(options, store, attachDirect(options.processTerminal)), options.directPort, options.host, "directTerminalPort")
  }))
