/**
 * A local HTTP server that answers each request as the test says (status, headers, body), recording what it was
 * asked: for hosts that answer in ways a real one rarely does (rate limits, malformed bodies).
 */
import * as Effect from "effect/Effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface ScriptedRequest {
  readonly method: string
  readonly path: string
  readonly body: string
}

export interface ScriptedAnswer {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as JSON unless a string. */
  readonly body: unknown
}

/** `answer` is told each request and how many came before it. */
export const scriptedHost = (answer: (request: ScriptedRequest, index: number) => ScriptedAnswer) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly requests: Array<ScriptedRequest>; readonly close: () => void }>((resume) => {
      const requests: Array<ScriptedRequest> = []
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
        req.on("end", () => {
          const request = { method: req.method ?? "GET", path: req.url ?? "/", body }
          const reply = answer(request, requests.length)
          requests.push(request)
          const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body)
          res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers }).end(text)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          requests,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })))
    }),
    (host) => Effect.sync(host.close)
  )
