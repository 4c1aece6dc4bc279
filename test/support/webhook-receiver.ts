/** A local HTTP server that records the webhook deliveries it receives (the repohost emulator's, in tests). */
import * as Effect from "effect/Effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface ReceivedDelivery {
  readonly event: string
  readonly delivery: string
  readonly signature: string
  readonly body: string
}

export const webhookReceiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ url: string; got: Array<ReceivedDelivery>; close: () => void }>((resolve) => {
      const got: Array<ReceivedDelivery> = []
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (c) => (body += c)).on("end", () => {
          got.push({
            event: String(req.headers["x-github-event"]),
            delivery: String(req.headers["x-github-delivery"]),
            signature: String(req.headers["x-hub-signature-256"]),
            body
          })
          res.writeHead(202).end()
        })
      })
      server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, close: () => server.close() }))
    })
  ),
  (r) => Effect.sync(r.close)
)
