import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { COALESCE_WINDOW_MS, deliverable, NotifierRouter } from "../../actors/notifier-router.ts"
import { GROUP_WINDOW_MS } from "../../actors/rules/notification-groups.ts"
import type { Notification } from "../../src/domain/notification.ts"
import { NotifierError, type NotifierShape } from "../../src/plugins/notifier/Notifier.ts"
import { StoreError } from "../../src/store/errors.ts"
import { EventLog, type EventLogShape } from "../../src/store/EventLog.ts"
import { tempDir } from "../support/host.ts"

const notification = (fields: Partial<Notification> = {}): Notification => ({
  id: "n1",
  type: "session.stuck",
  priority: "urgent",
  title: "app-1 is stuck",
  message: "no activity for 10m",
  timestamp: "2026-01-01T00:00:00.000Z",
  sessionId: "app-1",
  projectId: "app",
  ...fields
})

const recorder = (name: string, behaviour: (n: Notification) => Effect.Effect<void, NotifierError> = () => Effect.void) => {
  const seen: Array<string> = []
  const told: Array<Notification> = []
  const notifier: NotifierShape = { name, notify: (n) => Effect.andThen(Effect.sync(() => void (seen.push(n.id), told.push(n))), behaviour(n)) }
  return { notifier, seen, told }
}

/** What app-`n`'s agent dying raises: an urgent notification of its own. */
const died = (n: number): Notification =>
  notification({ id: `d${n}`, type: "reaction.agent-exited", title: `app-${n}: agent exited`, message: "its agent exited", sessionId: `app-${n}` })

const routing = { urgent: ["a", "b"], action: ["a"], warning: [], info: ["b"] }

const withRouter = (notifiers: ReadonlyArray<NotifierShape>) =>
  Effect.gen(function*() {
    const dir = yield* tempDir()
    const log = yield* EventLog.make(join(dir, "events.jsonl"))
    const router = yield* NotifierRouter.make(new Map(notifiers.map((n) => [n.name, n])), routing).pipe(Effect.provideService(EventLog, log))
    const events = () => readFileSync(log.path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))
    return { router, events }
  })

describe("notifier router", () => {
  it.effect("routes by priority; an empty route sends nowhere; every delivery is an event", () =>
    Effect.gen(function*() {
      const a = recorder("a")
      const b = recorder("b", () => Effect.fail(new NotifierError({ notifier: "b", reason: "HTTP 500 after 3 attempts" })))
      const { router, events } = yield* withRouter([a.notifier, b.notifier])
      const deliveries = yield* router.deliver(notification())
      assert.deepStrictEqual(deliveries, [{ notifier: "a", ok: true }, { notifier: "b", ok: false, reason: "HTTP 500 after 3 attempts" }])
      assert.deepStrictEqual(yield* router.deliver(notification({ id: "n2", priority: "warning" })), [])
      assert.deepStrictEqual(events().map((e) => [e.type, e.data.notifier]), [["notification.sent", "a"], ["notification.failed", "b"]])
      assert.strictEqual(events()[1].message, "b: HTTP 500 after 3 attempts")
      assert.deepStrictEqual(yield* router.deliver(notification({ id: "n3" }), "b"), [{ notifier: "b", ok: false, reason: "HTTP 500 after 3 attempts" }])
    }))

  it.effect("notify returns at once while a slow notifier is still sending; the fast one is not held up", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const slow = recorder("a", () => Deferred.await(gate))
      const fast = recorder("b")
      const { router } = yield* withRouter([slow.notifier, fast.notifier])
      yield* router.notify(notification())
      yield* Effect.yieldNow
      assert.deepStrictEqual(fast.seen, ["n1"])
      assert.deepStrictEqual(slow.seen, ["n1"])
      yield* Deferred.succeed(gate, undefined)
    }))

  it.effect("a notifier that never answers is cut off by its timeout", () =>
    Effect.gen(function*() {
      const hung = recorder("a", () => Effect.never)
      const { router } = yield* withRouter([hung.notifier])
      const fiber = yield* Effect.forkChild(router.deliver(notification({ priority: "action" })))
      yield* TestClock.adjust("60 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [{ notifier: "a", ok: false, reason: "no answer within 60 seconds" }])
    }))

  it.effect("repeats within the window are coalesced; after it, they go out again", () =>
    Effect.gen(function*() {
      const a = recorder("a")
      const { router } = yield* withRouter([a.notifier, recorder("b").notifier])
      yield* router.notify(notification({ id: "1" }))
      yield* router.notify(notification({ id: "2" }))
      yield* router.notify(notification({ id: "3", message: "something else" }))
      yield* TestClock.adjust(COALESCE_WINDOW_MS)
      yield* router.notify(notification({ id: "4" }))
      yield* Effect.yieldNow
      assert.deepStrictEqual(a.seen, ["1", "3", "4"])
    }))

  it.effect("300 agents found dead at once: the first is told at once, the other 299 as one notification when the window ends", () =>
    Effect.gen(function*() {
      const a = recorder("a")
      const { router, events } = yield* withRouter([a.notifier, recorder("b").notifier])
      for (let n = 1; n <= 300; n++) yield* router.notify(died(n))
      // Another priority, or another kind, is a group of its own: told at once.
      yield* router.notify(notification({ id: "s1", priority: "action", type: "session.stuck" }))
      const { sessionId: _, ...hostDown } = notification({ id: "h1", type: "host.down", title: "host b is down" })
      yield* router.notify(hostDown)
      yield* router.settled
      assert.deepStrictEqual(a.seen, ["d1", "s1", "h1"])

      yield* TestClock.adjust(GROUP_WINDOW_MS)
      yield* router.settled
      assert.strictEqual(a.told.length, 4)
      const group = a.told[3]!
      assert.deepInclude(group, {
        type: "reaction.agent-exited",
        priority: "urgent",
        title: "299 more: agent exited",
        message: "app-2, app-3, app-4, app-5, app-6 and 294 more; orch status shows each.",
        projectId: "app"
      })
      assert.isUndefined(group.sessionId)
      assert.deepStrictEqual((group.data as { sessions: Array<string> }).sessions, Array.from({ length: 299 }, (_, i) => `app-${i + 2}`))
      // Every delivery is still an event (one per notification sent), the group's naming how many it stands for.
      const sent = events().filter((e) => e.type === "notification.sent" && e.data.notifier === "a")
      assert.deepStrictEqual(sent.map((e) => e.message), ["app-1: agent exited", "app-1 is stuck", "host b is down", "299 more: agent exited"])
      assert.strictEqual(sent[3].data.grouped, 299)

      // The window over, the next one is told at once again; a lone follower goes out as it is.
      yield* router.notify(died(301))
      yield* router.notify(died(302))
      yield* router.settled
      assert.deepStrictEqual(a.seen.slice(4), ["d301"])
      yield* TestClock.adjust(GROUP_WINDOW_MS)
      yield* router.settled
      assert.deepStrictEqual(a.seen.slice(4), ["d301", "d302"])
    }))

  it.effect("a router that stops tells what its groups still hold", () =>
    Effect.gen(function*() {
      const a = recorder("a")
      const dir = yield* tempDir()
      const log = yield* EventLog.make(join(dir, "events.jsonl"))
      const scope = yield* Scope.make()
      const router = yield* NotifierRouter.make(new Map([["a", a.notifier]]), routing).pipe(Effect.provideService(EventLog, log), Scope.provide(scope))
      for (let n = 1; n <= 3; n++) yield* router.notify(died(n))
      yield* router.settled
      assert.deepStrictEqual(a.seen, ["d1"])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(a.told.map((n) => n.title), ["app-1: agent exited", "2 more: agent exited"])
    }))

  it.effect("in the background a failed delivery is logged as well as recorded; an event log that cannot be written is logged", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        logs.push(`${logLevel}: ${(Array.isArray(message) ? message : [message]).join(" ")}`)
      })
      const b = recorder("b", () => Effect.fail(new NotifierError({ notifier: "b", reason: "notify-send was not found on PATH" })))
      const { router, events } = yield* withRouter([recorder("a").notifier, b.notifier])
      yield* router.notify(notification()).pipe(Effect.provide(Logger.layer([logger])))
      yield* Effect.yieldNow
      assert.deepStrictEqual(logs, ["Warn: notifier b could not deliver \"app-1 is stuck\": notify-send was not found on PATH"])
      assert.deepStrictEqual(events().map((e) => [e.type, e.message]), [["notification.sent", "app-1 is stuck"], [
        "notification.failed",
        "b: notify-send was not found on PATH"
      ]])

      logs.length = 0
      const unwritable: EventLogShape = {
        path: "/nonexistent",
        stream: Stream.empty,
        append: () => Effect.fail(new StoreError({ path: "/nonexistent/events.jsonl", reason: "no such directory" })),
        appendStamped: () => Effect.fail(new StoreError({ path: "/nonexistent/events.jsonl", reason: "no such directory" })),
        size: Effect.succeed(0),
        linesFrom: () => Effect.succeed([])
      }
      const broken = yield* NotifierRouter.make(new Map([["a", recorder("a").notifier]]), routing).pipe(Effect.provideService(EventLog, unwritable))
      assert.deepStrictEqual(yield* broken.deliver(notification({ id: "n9", priority: "action" })).pipe(Effect.provide(Logger.layer([logger]))), [{
        notifier: "a",
        ok: true
      }])
      assert.strictEqual(logs.length, 1)
      assert.match(logs[0]!, /^Error: could not record the delivery of notification n9 to a: .*no such directory/)
    }))

  it("a notifier that cannot deliver here is left out of a route with another one, and kept where it is alone", () => {
    const available: NotifierShape = { name: "hosted", notify: () => Effect.void }
    const headless: NotifierShape = { name: "desktop", notify: () => Effect.void, unavailable: "notify-send was not found on PATH" }
    const notifiers = new Map([["hosted", available], ["desktop", headless]])
    const skipped = [{ notifier: "desktop", reason: "notify-send was not found on PATH" }]
    const rows: ReadonlyArray<[ReadonlyArray<string>, ReturnType<typeof deliverable>]> = [
      [["desktop", "hosted"], { send: ["hosted"], skipped }],
      [["hosted"], { send: ["hosted"], skipped: [] }],
      [["desktop"], { send: ["desktop"], skipped: [] }],
      [[], { send: [], skipped: [] }],
      [["nobody", "desktop"], { send: ["nobody"], skipped }]
    ]
    for (const [route, expected] of rows) assert.deepStrictEqual(deliverable(route, notifiers), expected, route.join(","))
  })

  it.effect("a route's notifier that cannot deliver here is said once, as one event, not a failure per notification", () =>
    Effect.gen(function*() {
      const a = recorder("a")
      const reason = "notify-send was not found on PATH"
      const b: NotifierShape = { name: "b", notify: () => Effect.fail(new NotifierError({ notifier: "b", reason })), unavailable: reason }
      const { router, events } = yield* withRouter([a.notifier, b])
      yield* router.deliver(notification({ id: "n1" }))
      yield* router.deliver(notification({ id: "n2", message: "another" }))
      assert.deepStrictEqual(a.seen, ["n1", "n2"])
      assert.deepStrictEqual(events().map((e) => e.type), ["notifier.unavailable", "notification.sent", "notification.sent"])
      assert.deepStrictEqual(events()[0].data, { notifier: "b", reason: "notify-send was not found on PATH" })
      // Named on its own (as `orch doctor --notify` does), it is tried.
      assert.deepStrictEqual(yield* router.deliver(notification({ id: "n3" }), "b"), [{ notifier: "b", ok: false, reason }])
    }))
})
