/**
 * The supervisor's time rules under TestClock: ready → idle, stuck, exited after several failed probes, and
 * actor restarts with backoff and escalation. The runtime is orch/testing's in-memory one, given as a Layer, as a
 * runtime that cannot tell when its terminal last printed: only the agent's hooks, its screen and the clock decide.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import { TestClock } from "effect/testing"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { MAX_RESTARTS } from "../../actors/rules/restart-policy.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import type { SlotLayers } from "../../src/plugins/layers.ts"
import { Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { Scm } from "../../src/plugins/scm/Scm.ts"
import { escalationsPath } from "../../src/store/escalations-file.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { makeTestNotifier, makeTestRuntime, makeTestScm, pullRequestView, scriptedAgent } from "../../src/testing/index.ts"
import { tempDir, withHost } from "../support/host.ts"
import { drivenSupervisorOn, routedTo } from "../support/supervisor.ts"
import { countingCaptures, withoutOutputTimes } from "../support/test-runtime.ts"

const MIN = 60_000
const iso = (ms: number) => new Date(ms).toISOString()
const CLAUDE_SCREENS = resolve("test/fixtures/agents/claude-code-2.1.328")

/** `replace`: the test's own Layers in other slots (every project's). */
const setup = (project: Record<string, unknown> = {}, replace: SlotLayers = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({
      readyThresholdMs: 5 * MIN,
      projects: {
        app: { repo: "acme/app", path: join(root, "app"), agent: "command", agentConfig: { command: "true" }, ...project }
      }
    }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
    const store = SessionStore.make(root)
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const base = makeTestRuntime()
    const { runtime, captures } = countingCaptures(withoutOutputTimes(base))
    const workspacePath = join(root, "w")
    const handle = yield* runtime.create({ sessionId: "app-1", workingDir: workspacePath, command: "true", env: {}, unsetEnv: [] })
    const record: SessionRecord = {
      sessionId: "app-1",
      projectId: "app",
      issueId: "1",
      status: "working",
      activity: "active",
      activitySince: iso(0),
      branch: "feat/1",
      workspacePath,
      runtime: handle,
      agent: { plugin: "command" },
      pr: null,
      createdAt: iso(0),
      updatedAt: iso(0)
    }
    yield* store.write(record)
    const notifier = makeTestNotifier("rec")
    // Built in the test's scope: the router's delivery fibers live as long as the test.
    const supervisor = yield* drivenSupervisorOn({
      config,
      store,
      events,
      replace: { runtime: Runtime.layerTest(runtime), ...replace },
      notifiers: new Map([["rec", notifier]]),
      routing: routedTo("rec")
    })
    /** The receipt that the actors handled all they were offered, and the notifications they sent went out. */
    const settle = supervisor.settle
    const current = () => JSON.parse(readFileSync(store.paths.record("app", "app-1"), "utf8")) as SessionRecord
    const types = () =>
      existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l).type as string) : []
    const agent = scriptedAgent(runtime, "app-1", Effect.succeed(store.paths.activity("app", "app-1")))
    /** One of the agent's hooks fires, now (TestClock time). */
    const signal = agent.hook
    /** What the agent's terminal shows from now on: a screen recorded from the real Claude Code. */
    const show = (fixture: string) => {
      base.terminals.get("app-1")!.screen = readFileSync(join(CLAUDE_SCREENS, `${fixture}.txt`), "utf8")
    }
    /** What the agent was sent (send-to-agent reactions). */
    const sent = () => base.terminals.get("app-1")?.sent ?? []
    const logged = () => existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []
    return { supervisor, settle, current, types, signal, show, sent, logged, notified: notifier.received, store, base, captures }
  })

describe("supervisor under TestClock", () => {
  it.effect("ready → idle after readyThresholdMs, from the agent's own Stop signal", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.signal("Stop")
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.current().activity, "ready")
      yield* TestClock.adjust(5 * MIN - 1)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.current().status, "ready")
      yield* TestClock.adjust(1)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.current().status, "idle")
      assert.includeMembers(t.types(), ["session.ready", "session.idle"])
    }).pipe(Effect.scoped))

  it.effect("no activity for the agent-stuck threshold (10m): stuck, and an urgent notification", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* TestClock.adjust(10 * MIN)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.current().status, "stuck")
      assert.deepStrictEqual(t.notified.map((n) => [n.priority, n.type]), [["urgent", "reaction.agent-stuck"]])
      assert.includeMembers(t.types(), ["session.stuck", "reaction.triggered"])
      // activity clears it, and the reaction's attempts reset
      yield* t.signal("PreToolUse")
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.current().status, "working")
      assert.isUndefined(t.current().reactions)
    }).pipe(Effect.scoped))

  it.effect("rate-limited (a StopFailure): notified once, told to continue once when the backoff (5m) has passed", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      const message = "API Error: Request rejected (429) · This request would exceed your account's rate limit."
      yield* t.signal("StopFailure", { error: "rate_limit", last_assistant_message: message })
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.current().status, "rate_limited")
      assert.deepStrictEqual(t.current().rateLimit, { since: iso(0), attempts: 1, kind: "rate_limit", message, gaveUpAt: iso(0), continueAt: iso(5 * MIN) })
      assert.deepStrictEqual(t.notified.map((n) => [n.priority, n.type]), [["action", "reaction.agent-rate-limited"]])
      assert.include(t.notified[0]!.message, `${message}; orch tells it to continue at `)
      yield* TestClock.adjust(5 * MIN - 1)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.lengthOf(t.sent(), 0)
      yield* TestClock.adjust(1)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.deepStrictEqual(t.sent(), ["Your model provider's limit has reset. Continue your task where you left off."])
      yield* TestClock.adjust(60 * MIN)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.lengthOf(t.sent(), 1, "once per time it was turned away")
      assert.lengthOf(t.notified, 1)
    }).pipe(Effect.scoped))

  it.effect("a runtime gone for three probes in a row: exited, session.exited, agent-exited notification", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.base.destroy({ plugin: "test", id: "app-1", data: {} })
      for (const expected of ["active", "active", "exited"]) {
        yield* t.supervisor.cycle()
        yield* t.settle
        assert.strictEqual(t.current().activity, expected)
      }
      assert.strictEqual(t.current().status, "errored")
      assert.include(t.types(), "session.exited")
      assert.deepStrictEqual(t.notified.map((n) => n.type), ["reaction.agent-exited"])
    }).pipe(Effect.scoped))

  it.effect("all-complete: when the last live session ends, one notification with the summary", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.supervisor.cycle()
      yield* t.settle
      yield* t.store.write({ ...t.current(), status: "merged", pr: { number: 4, url: "https://github.com/acme/app/pull/4", state: "merged" } })
      yield* t.supervisor.cycle()
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.deepStrictEqual(t.notified.map((n) => n.type), ["reaction.all-complete"])
      assert.include(t.notified[0]!.message, "app-1: merged (PR #4 merged)")
      assert.strictEqual(yield* t.supervisor.actorCount, 0)
    }).pipe(Effect.scoped))

  it.effect("all-complete: also for sessions that start and end between two probe cycles", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.supervisor.adopt()
      yield* t.store.write({ ...t.current(), status: "merged", pr: { number: 4, url: "https://github.com/acme/app/pull/4", state: "merged" } })
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.deepStrictEqual(t.notified.map((n) => n.type), ["reaction.all-complete"])
    }).pipe(Effect.scoped))

  it.effect("a crashing actor restarts after 1, 2, 4, 8, 16 s and escalates after more than MAX_RESTARTS in the window", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      // Each crash's line in the supervisor's log is the receipt that the actor crashed and waits its back-off.
      const crashes = yield* Queue.unbounded<string>()
      const logger = Logger.layer([
        Logger.make(({ message }) => {
          const line = String(Array.isArray(message) ? message[0] : message)
          if (line.startsWith("the actor of app-1 crashed")) Queue.offerUnsafe(crashes, line)
        })
      ])
      // The actor starts in this cycle and keeps its logger: its crashes are told here.
      yield* t.supervisor.cycle().pipe(Effect.provide(logger))
      yield* t.settle
      writeFileSync(t.store.paths.record("app", "app-1"), "{ corrupt")
      const delays = [1000, 2000, 4000, 8000, 16000]
      for (let crash = 0; crash <= MAX_RESTARTS; crash++) {
        yield* t.supervisor.observe("app-1", { _tag: "Tick" })
        const line = yield* Queue.take(crashes)
        if (crash < MAX_RESTARTS) {
          assert.include(line, `it starts again in ${delays[crash]! / 1000} s`)
          assert.notInclude(t.types(), "supervisor.escalated")
          yield* TestClock.adjust(delays[crash]! - 1)
          assert.strictEqual(yield* t.supervisor.actorCount, 1, "still backing off, not gone")
          yield* TestClock.adjust(1)
        } else {
          assert.include(line, "so orch stops watching the session")
        }
      }
      // Its end: the mailbox it leaves is drained, the notification sent.
      yield* t.settle
      assert.include(t.types(), "supervisor.escalated")
      assert.deepStrictEqual(t.notified.map((n) => [n.priority, n.type]), [["urgent", "supervisor.escalated"]])
      assert.strictEqual(yield* t.supervisor.actorCount, 0)
      // Remembered, so a new supervisor does not watch it again (test/actors/session-actors.test.ts).
      const remembered = JSON.parse(readFileSync(escalationsPath(t.store.paths.root), "utf8")).escalations
      assert.deepStrictEqual(remembered.map((e: { sessionId: string; reason: string }) => [e.sessionId, e.reason]), [[
        "app-1",
        `its actor crashed ${MAX_RESTARTS + 1} times within 60 s`
      ]])
    }).pipe(Effect.scoped))

  it.effect("a burst of webhook deliveries for one branch is answered by one look at its PR, and a late one by one more", () =>
    Effect.gen(function*() {
      const scm = makeTestScm()
      scm.views.set("feat/1", pullRequestView("acme/app", 1, { checks: "passing", mergeable: true }))
      const t = yield* setup({}, { scm: Scm.layerTest(scm) })
      yield* t.supervisor.adopt()
      // The delivery that starts a burst's wait returns once the look it waited for has ended: the receipt of the look.
      const deliver = t.supervisor.branchChanged("acme/app", "feat/1").pipe(Effect.forkChild({ startImmediately: true }))
      const first = yield* deliver
      yield* deliver
      yield* deliver
      yield* t.settle
      assert.lengthOf(scm.looks, 0, "waiting for the rest of the burst")
      yield* TestClock.adjust("50 millis")
      yield* Fiber.join(first)
      yield* t.settle
      assert.deepStrictEqual(scm.looks, ["feat/1"])
      const late = yield* deliver
      yield* t.settle
      yield* TestClock.adjust("50 millis")
      yield* Fiber.join(late)
      assert.deepStrictEqual(scm.looks, ["feat/1", "feat/1"])
    }).pipe(Effect.scoped))

  it.effect("an agent with hooks is never read from its screen while its hooks speak; after 60 s of silence, once per cycle", () =>
    Effect.gen(function*() {
      const t = yield* setup({ agent: "coding-agent", agentConfig: {} })
      for (let at = 0; at < 10 * MIN; at += 30_000) {
        yield* t.signal(at % 60_000 === 0 ? "PreToolUse" : "PostToolUse")
        yield* t.supervisor.cycle()
        yield* t.settle
        yield* TestClock.adjust(30_000)
      }
      assert.strictEqual(t.captures(), 0, "ten minutes of hook signals: no screen read")
      yield* TestClock.adjust(60_000)
      yield* t.supervisor.cycle()
      yield* t.settle
      assert.strictEqual(t.captures(), 1, "a minute without hooks: the screen fallback")
    }).pipe(Effect.scoped))

  /** One probe cycle at the TestClock's time, its observations handled. */
  const cycle = (t: Effect.Success<ReturnType<typeof setup>>) => Effect.andThen(t.supervisor.cycle(), t.settle)

  it.effect("a 429's retry screen (recorded): rate_limited with the reset it shows, notified; never typed into while it retries; then recovery", () =>
    Effect.gen(function*() {
      const t = yield* setup({ agent: "coding-agent", agentConfig: {} })
      t.show("limit-429-retry-after-35s-retry-1")
      yield* cycle(t)
      assert.strictEqual(t.current().status, "rate_limited")
      assert.deepStrictEqual(t.current().rateLimit, {
        since: iso(0),
        attempts: 1,
        resetAt: iso(39_000),
        message: "API error · retrying in 39s · attempt 1/10",
        retrying: true,
        continueAt: iso(99_000)
      })
      const limited = t.logged().find((e) => e.type === "session.rate_limited")
      assert.deepInclude(limited.data, { attempts: 1, retrying: true, resetAt: iso(39_000) })
      assert.deepStrictEqual(t.notified.map((n) => [n.priority, n.type]), [["action", "reaction.agent-rate-limited"]])
      assert.match(
        t.notified[0]!.message,
        /^API error · retrying in 39s · attempt 1\/10; it retries by itself, next at \d\d:\d\d \S+; should it give up, orch tells it to continue once the limit resets \(an overload: a minute later, then 2, 4, 8 … minutes\)\n/
      )
      // Its third attempt names the limit: the kind and the new wait are learned.
      yield* TestClock.adjust(75_000)
      t.show("limit-429-retry-after-35s-retry-2")
      yield* cycle(t)
      assert.deepInclude(t.current().rateLimit, { kind: "rate_limit", resetAt: iso(75_000 + 43_000), retrying: true })
      for (let minute = 0; minute < 60; minute += 5) {
        yield* TestClock.adjust(5 * MIN)
        yield* cycle(t)
      }
      assert.lengthOf(t.sent(), 0, "an hour of retries of its own: orch typed nothing")
      // A retry got through and the turn ended normally: the limit is forgotten.
      yield* TestClock.adjust(1000)
      t.show("limit-429-retry-after-35s-end")
      yield* t.signal("Stop")
      yield* cycle(t)
      assert.strictEqual(t.current().status, "ready")
      assert.isUndefined(t.current().rateLimit)
      assert.lengthOf(t.notified, 1)
    }).pipe(Effect.scoped))

  it.effect("an overload the agent gave up on (recorded 529): told to continue a minute later, then 2 minutes after it gave up again", () =>
    Effect.gen(function*() {
      const t = yield* setup({ agent: "coding-agent", agentConfig: {} })
      const gaveUp = JSON.parse(readFileSync(join(CLAUDE_SCREENS, "limit-529.hooks.jsonl"), "utf8").trim().split("\n").at(-1)!).payload
      t.show("limit-529-retry-3")
      yield* cycle(t)
      assert.deepInclude(t.current().rateLimit, { kind: "overloaded", retrying: true })
      assert.include(
        t.notified[0]!.message,
        "orch tells it to continue a minute after it gives up (then 2, 4, 8 … minutes while the provider stays overloaded)"
      )
      // It gives up at 3 minutes: its StopFailure hook and the error above its input box.
      yield* TestClock.adjust(3 * MIN)
      t.show("limit-529-end")
      yield* t.signal("StopFailure", gaveUp)
      yield* cycle(t)
      assert.deepInclude(t.current().rateLimit, { kind: "overloaded", gaveUpAt: iso(3 * MIN), continueAt: iso(4 * MIN) })
      yield* TestClock.adjust(MIN - 1)
      yield* cycle(t)
      assert.lengthOf(t.sent(), 0)
      yield* TestClock.adjust(1)
      yield* cycle(t)
      assert.lengthOf(t.sent(), 1, "a minute after it gave up, not the 5-minute threshold")
      // It takes the message and is turned away again: it retries, then gives up at 5 minutes.
      yield* TestClock.adjust(1000)
      yield* t.signal("UserPromptSubmit")
      t.show("limit-529-retry-3")
      yield* TestClock.adjust(4000)
      yield* cycle(t)
      assert.deepInclude(t.current().rateLimit, { attempts: 2, retrying: true })
      yield* TestClock.adjust(MIN - 5000)
      t.show("limit-529-end")
      yield* t.signal("StopFailure", gaveUp)
      yield* cycle(t)
      assert.deepInclude(t.current().rateLimit, { attempts: 2, gaveUpAt: iso(5 * MIN), continueAt: iso(7 * MIN) })
      yield* TestClock.adjust(2 * MIN - 1)
      yield* cycle(t)
      assert.lengthOf(t.sent(), 1)
      yield* TestClock.adjust(1)
      yield* cycle(t)
      assert.lengthOf(t.sent(), 2, "2 minutes after it gave up again")
      assert.lengthOf(t.notified, 1, "one notification for the whole overload")
    }).pipe(Effect.scoped))
})
