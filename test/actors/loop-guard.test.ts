/**
 * The loop guard on a loop that fails, then recovers, under the TestClock: each failure is a supervisor.error
 * event and waits the backoff; repeated failures escalate once (an event and an urgent notification); the loop
 * goes on after. The test waits on receipts: events appended, calls made.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { makeLoopGuard } from "../../actors/loop-guard.ts"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import type { LoopPolicy } from "../../actors/rules/loop-health.ts"
import type { OrchEvent } from "../../src/domain/event.ts"
import type { Notification } from "../../src/domain/notification.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { tempDir } from "../support/host.ts"

const policy: LoopPolicy = { baseMs: 1_000, maxMs: 4_000, escalateAfter: 3, windowMs: 60_000, escalateInWindow: 10 }

class Boom extends Error {}

const setup = Effect.gen(function*() {
  const dir = yield* tempDir()
  const events = yield* EventLog.make(join(dir, "events.jsonl"))
  const notified: Array<Notification> = []
  const router = yield* NotifierRouter.make(
    new Map([["inbox", { name: "inbox", notify: (n: Notification) => Effect.sync(() => void notified.push(n)) }]]),
    { urgent: ["inbox"], action: [], warning: [], info: [] }
  ).pipe(Effect.provideService(EventLog, events))
  const appended = yield* Queue.unbounded<OrchEvent>()
  yield* events.stream.pipe(Stream.runForEach((event) => Queue.offer(appended, event)), Effect.forkScoped({ startImmediately: true }))
  /** The next event appended of one of `types`. */
  const next = (...types: ReadonlyArray<string>): Effect.Effect<OrchEvent> =>
    Effect.flatMap(Queue.take(appended), (event) => (types.includes(event.type) ? Effect.succeed(event) : next(...types)))
  const guard = makeLoopGuard({ events, notify: router.notify, logPath: join(dir, "supervisor.log") })
  const logged = () => readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as OrchEvent)
  return { guard, next, notified, logged, appended }
})

describe("loop guard", () => {
  it.effect("a loop that fails 4 times then recovers: supervisor.error each time, one escalation, backoff, and it keeps going", () =>
    Effect.gen(function*() {
      const { guard, next, notified, logged } = yield* setup
      const calls = yield* Queue.unbounded<number>()
      let n = 0
      const step = Effect.gen(function*() {
        n++
        yield* Queue.offer(calls, yield* Clock.currentTimeMillis)
        if (n === 3) return yield* Effect.die(new Boom("the cycle hit a bug"))
        if (n <= 4) return yield* Effect.fail(new Boom(`repohost answered 500 (call ${n})`))
      })
      const fiber = yield* guard("PR poll", policy).forever(step, Effect.succeed(500)).pipe(Effect.forkChild)

      assert.strictEqual(yield* Queue.take(calls), 0)
      const first = yield* next("supervisor.error")
      assert.deepStrictEqual(first.data, { loop: "PR poll", attempt: 1 })
      assert.strictEqual(first.message, "PR poll failed: repohost answered 500 (call 1); orch tries again in 1 s.")

      yield* TestClock.adjust(1_000)
      assert.strictEqual(yield* Queue.take(calls), 1_000)
      assert.strictEqual((yield* next("supervisor.error")).message, "PR poll failed: repohost answered 500 (call 2); orch tries again in 2 s.")

      yield* TestClock.adjust(2_000)
      assert.strictEqual(yield* Queue.take(calls), 3_000)
      const defect = yield* next("supervisor.error", "supervisor.escalated")
      assert.strictEqual(defect.message, "PR poll failed: the cycle hit a bug; orch tries again in 4 s.")
      const escalated = yield* next("supervisor.error", "supervisor.escalated")
      assert.strictEqual(escalated.type, "supervisor.escalated")
      assert.deepStrictEqual(escalated.data, { loop: "PR poll", failures: 3, inARow: 3 })
      assert.match(
        escalated.message!,
        /^The PR poll failed 3 times in a row \(last: the cycle hit a bug\); orch keeps trying\. Its log is .*supervisor\.log\.$/
      )
      yield* next("notification.sent")
      assert.deepStrictEqual(notified.map((x) => [x.type, x.priority, x.title]), [["supervisor.escalated", "urgent", "orch: the PR poll keeps failing"]])

      yield* TestClock.adjust(4_000)
      assert.strictEqual(yield* Queue.take(calls), 7_000)
      assert.deepStrictEqual((yield* next("supervisor.error", "supervisor.escalated")).data, { loop: "PR poll", attempt: 4 })

      // Capped at 4 s; then it succeeds, and goes on at its own pace.
      yield* TestClock.adjust(4_000)
      assert.strictEqual(yield* Queue.take(calls), 11_000)
      yield* TestClock.adjust(500)
      assert.strictEqual(yield* Queue.take(calls), 11_500)
      yield* TestClock.adjust(500)
      assert.strictEqual(yield* Queue.take(calls), 12_000)

      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(logged().map((e) => e.type), [
        "supervisor.error",
        "supervisor.error",
        "supervisor.error",
        "supervisor.escalated",
        "notification.sent",
        "supervisor.error"
      ])
    }))

  it.effect("the log: one line per new failure or reason, fewer for the same one, a line when it works again; a stack only for a defect", () =>
    Effect.gen(function*() {
      const { guard, next } = yield* setup
      const lines: Array<{ readonly level: string; readonly text: string; readonly defect: boolean }> = []
      const capture = Logger.layer([
        Logger.make(({ logLevel, message, cause }) =>
          void lines.push({ level: logLevel, text: String(message), defect: cause.reasons.some(Cause.isDieReason) })
        )
      ])
      // 6 failures with one reason (1 s apart: the cap), a 7th with another, an 8th that is a bug, then successes.
      let n = 0
      const done = yield* Queue.unbounded<void>()
      const step = Effect.suspend(() => {
        n++
        if (n <= 6) return Effect.fail(new Boom("the repohost answered 404"))
        if (n === 7) return Effect.fail(new Boom("connection refused"))
        if (n === 8) return Effect.die(new Boom("a bug"))
        // The 9th works; the 10th says the 9th was logged whole.
        return n === 9 ? Effect.void : Queue.offer(done, undefined)
      })
      const flat: LoopPolicy = { ...policy, maxMs: 1_000, escalateAfter: 100 }
      const fiber = yield* guard("PR poll", flat).forever(step, Effect.succeed(1_000)).pipe(Effect.provide(capture), Effect.forkChild)
      for (let i = 1; i <= 8; i++) {
        yield* next("supervisor.error")
        yield* TestClock.adjust(1_000)
      }
      yield* TestClock.adjust(1_000)
      yield* Queue.take(done)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(lines.map(({ level, text, defect }) => [level, text, defect]), [
        ["Error", "the PR poll failed: the repohost answered 404; orch tries again in 1 s", false],
        ["Error", "the PR poll still fails (2 in a row): the repohost answered 404; orch tries again in 1 s", false],
        ["Error", "the PR poll still fails (4 in a row): the repohost answered 404; orch tries again in 1 s", false],
        ["Error", "the PR poll failed again (7 in a row), now: connection refused; orch tries again in 1 s", false],
        ["Error", "the PR poll failed again (8 in a row), now: a bug; orch tries again in 1 s", true],
        ["Info", "the PR poll works again, after 8 failures in a row", false]
      ])
    }))

  it.effect("interruption is not a failure: a loop stopped mid-step records nothing", () =>
    Effect.gen(function*() {
      const { guard, appended } = yield* setup
      const started = yield* Queue.unbounded<void>()
      const fiber = yield* guard("probe cycle", policy).forever(Effect.andThen(Queue.offer(started, undefined), Effect.never)).pipe(Effect.forkChild)
      yield* Queue.take(started)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual((yield* Fiber.await(fiber))._tag, "Failure")
      assert.deepStrictEqual(yield* Queue.clear(appended), [])
    }))

  it.effect("attempt reports a failure with what happens next, and never fails itself", () =>
    Effect.gen(function*() {
      const { guard, next } = yield* setup
      const cleanup = guard("session cleanup", policy)
      yield* cleanup.attempt(Effect.fail("git worktree remove failed"), "orch tries again at the next probe cycle")
      const event = yield* next("supervisor.error")
      assert.strictEqual(event.message, "Session cleanup failed: git worktree remove failed; orch tries again at the next probe cycle.")
      yield* cleanup.attempt(Effect.void, "unused")
      yield* cleanup.attempt(Effect.fail("again"), "later")
      assert.deepStrictEqual((yield* next("supervisor.error")).data, { loop: "session cleanup", attempt: 1 })
    }))
})
