import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { chmodSync, mkdirSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { writeFile } from "../support/host.ts"
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
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
          bodies,
          close: () => server.close()
        })))
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

  it.live("desktop with no notify-send is left out of a route with hosted, said once; on its own, or one that fails, says failed and why", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const bin = join(s.root, "bin")
      mkdirSync(bin)
      // No notify-send on PATH: the default routing sends urgent to desktop and hosted; desktop is left out, said once.
      const none = yield* s.orch(["notify", "--priority", "urgent", "disk", "full"], { PATH: bin })
      assert.strictEqual(none.code, 0, none.stderr)
      assert.strictEqual(
        none.stdout,
        [
          "desktop: left out: notify-send was not found on PATH; install libnotify-bin (or libnotify), or take this notifier out of notificationRouting",
          "hosted: delivered",
          ""
        ].join("\n")
      )
      assert.deepInclude(s.events().find((e) => e.type === "notifier.unavailable"), {
        message:
          "desktop cannot deliver on this machine (notify-send was not found on PATH; install libnotify-bin (or libnotify), or take this notifier out of notificationRouting); notifications routed to it go to the other notifiers of their route"
      })

      // Named on its own, it is tried and its failure said.
      const alone = yield* s.orch(["notify", "--notifier", "desktop", "x"], { PATH: bin })
      assert.strictEqual(alone.code, 1)
      assert.strictEqual(
        alone.stdout,
        "desktop: failed: notify-send was not found on PATH; install libnotify-bin (or libnotify), or take this notifier out of notificationRouting\n"
      )

      // Only desktop, and its notify-send cannot reach a notification daemon.
      chmodSync(writeFile(join(bin, "notify-send"), "#!/bin/sh\necho 'Cannot autolaunch D-Bus without X11 $DISPLAY' >&2\nexit 1\n"), 0o755)
      const broken = yield* s.orch(["notify", "--notifier", "desktop", "x"], { PATH: bin })
      assert.strictEqual(broken.code, 1)
      assert.strictEqual(
        broken.stdout,
        "desktop: failed: notify-send exited with 1 (Cannot autolaunch D-Bus without X11 $DISPLAY); check that a desktop session with notifications is running, or take this notifier out of notificationRouting\n"
      )
      assert.strictEqual(broken.stderr, "orch: no notifier delivered it (desktop failed, reasons above); fix them or change notificationRouting\n")

      // A notify-send that works is a delivery.
      chmodSync(writeFile(join(bin, "notify-send"), `#!/bin/sh\nprintf '%s\\n' "$@" > ${join(s.root, "shown")}\n`), 0o755)
      const works = yield* s.orch(["notify", "--priority", "urgent", "disk", "full"], { PATH: bin })
      assert.strictEqual(works.code, 0, works.stderr)
      assert.strictEqual(works.stdout, "desktop: delivered\nhosted: delivered\n")
      assert.include(readFileSync(join(s.root, "shown"), "utf8"), "disk full")
      assert.deepStrictEqual(s.events().map((e) => `${e.type} ${e.data.notifier}`).sort(), [
        "notification.failed desktop",
        "notification.failed desktop",
        "notification.sent desktop",
        "notification.sent hosted",
        "notification.sent hosted",
        "notifier.unavailable desktop"
      ])
    }))
})
