import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { sandbox } from "../support/orch-sandbox.ts"

/** A webhook receiver answering `status`, recording bodies. */
const receiver = (status: number) =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; bodies: Array<unknown>; close: () => void }>((resume) => {
      const bodies: Array<unknown> = []
      const server = createServer((req, res) => {
        let data = ""
        req.on("data", (chunk) => (data += chunk))
        req.on("end", () => {
          bodies.push(JSON.parse(data))
          res.writeHead(status).end()
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, close: () => server.close() })))
    }),
    (r) => Effect.sync(() => r.close())
  )

describe("orch notify / orch notifications", () => {
  it.live("routes by priority, reports each notifier, fills the hosted inbox", () =>
    Effect.gen(function*() {
      const hook = yield* receiver(204)
      const s = yield* sandbox({
        config: { notifiers: { hook: { plugin: "webhook", url: hook.url, retries: 0 } }, notificationRouting: { urgent: ["hook", "hosted"], info: [] } }
      })
      const sent = yield* s.orch(["notify", "--priority", "urgent", "disk", "is", "full"])
      assert.strictEqual(sent.code, 0, sent.stderr)
      assert.strictEqual(sent.stdout, "hook: delivered\nhosted: delivered\n")
      assert.deepInclude((hook.bodies[0] as { event: unknown }).event, { type: "test", priority: "urgent", message: "disk is full" })
      const inbox = JSON.parse((yield* s.orch(["notifications", "--json"])).stdout)
      assert.deepInclude(inbox[0], { priority: "urgent", message: "disk is full", read: false })
      assert.strictEqual((yield* s.orch(["notifications", "--mark-read"])).code, 0)
      assert.strictEqual((yield* s.orch(["notifications", "--unread"])).stdout, "No unread notifications.\n")
      assert.deepStrictEqual(s.events().map((e) => [e.type, e.data.notifier]).sort(), [["notification.sent", "hook"], ["notification.sent", "hosted"]])

      const none = yield* s.orch(["notify", "--priority", "info", "x"])
      assert.strictEqual(none.code, 1)
      assert.include(none.stderr, "priority info is routed to no notifier")
      const unknown = yield* s.orch(["notify", "--notifier", "pager", "x"])
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "no notifier \"pager\"")
    }))

  it.live("a notifier that fails makes exit 1 and says why", () =>
    Effect.gen(function*() {
      const hook = yield* receiver(401)
      const s = yield* sandbox({ config: { notifiers: { hook: { plugin: "webhook", url: hook.url } }, notificationRouting: { urgent: ["hook"] } } })
      const run = yield* s.orch(["notify", "--priority", "urgent", "x"])
      assert.strictEqual(run.code, 1)
      assert.match(run.stdout, /^hook: failed: .*401/)
      assert.strictEqual(hook.bodies.length, 1, "a 401 is not retried")
      assert.deepInclude(s.events()[0], { type: "notification.failed" })
    }))

  it.live("a notifier with bad settings is a configuration error", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ config: { notifiers: { hook: { plugin: "webhook", url: "ftp://example.com" } }, notificationRouting: { urgent: ["hook"] } } })
      const run = yield* s.orch(["notify", "x"])
      assert.strictEqual(run.code, 2)
      assert.match(run.stderr, /^orch: notifier hook: /)
    }))
})
