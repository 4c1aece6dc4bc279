/**
 * The supervisor's activity path under TestClock: a `command` agent's record follows its screen's quiescence
 * (ready after quietMs, idle after readyThresholdMs, working on new output), and `orch report` lines win while
 * they hold. The runtime is orch/testing's in-memory one, given as a Layer: its terminal prints when the test says.
 * Every step waits for its receipt: the event the supervisor appends.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { EventType } from "../../src/domain/event.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { makeTestNotifier, makeTestRuntime, scriptedAgent } from "../../src/testing/index.ts"
import { tempDir, withHost } from "../support/host.ts"
import { drivenSupervisorOn, routedTo } from "../support/supervisor.ts"
import { countingCaptures } from "../support/test-runtime.ts"

const S = 1000
const MIN = 60 * S
const iso = (ms: number) => new Date(ms).toISOString()

const setup = (project: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({
      readyThresholdMs: 5 * MIN,
      projects: {
        app: {
          repo: "acme/app",
          path: join(root, "app"),
          agent: "command",
          agentConfig: { command: "true", quietMs: 3 * S },
          ...project
        }
      }
    }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
    const store = SessionStore.make(root)
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const { runtime, captures } = countingCaptures(makeTestRuntime())
    const workspacePath = join(root, "w")
    const handle = yield* runtime.create({ sessionId: "app-1", workingDir: workspacePath, command: "true", env: {}, unsetEnv: [] })
    yield* store.write({
      sessionId: "app-1",
      projectId: "app",
      issueId: "1",
      status: "working",
      activity: "active",
      branch: "feat/1",
      workspacePath,
      runtime: handle,
      agent: { plugin: "command" },
      pr: null,
      createdAt: iso(0),
      updatedAt: iso(0)
    })
    const notifier = makeTestNotifier("rec")
    const supervisor = yield* drivenSupervisorOn({
      config,
      store,
      events,
      replace: { runtime: Runtime.layerTest(runtime) },
      notifiers: new Map([["rec", notifier]]),
      routing: routedTo("rec")
    })
    const agent = scriptedAgent(runtime, "app-1", Effect.succeed(store.paths.activity("app", "app-1")))
    const record = () => JSON.parse(readFileSync(store.paths.record("app", "app-1"), "utf8")) as SessionRecord
    const types = () => (existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line).type as string) : [])
    /** The session's own lifecycle events, in order. */
    const lifecycle = () => types().filter((type) => type.startsWith("session."))
    /** The agent's terminal prints, now (TestClock time): a line no agent plugin recognises. */
    const output = agent.show("compiling the project")
    /**
     * Starts listening for the supervisor to append `type` for app-1 (the receipt) and returns the wait for it. A
     * real-time guard of 5 s turns a missing receipt into a failure that names it, instead of the test's timeout.
     */
    const awaiting = (type: EventType) =>
      Effect.map(
        Effect.forkChild(events.stream.pipe(Stream.filter((e) => e.type === type && e.sessionId === "app-1"), Stream.runHead), { startImmediately: true }),
        (waiting) =>
          Effect.gen(function*() {
            const guard = Effect.callback<never, Error>((resume) => {
              const timer = setTimeout(() => resume(Effect.fail(new Error(`no ${type} from the supervisor within 5 s`))), 5000)
              return Effect.sync(() => clearTimeout(timer))
            })
            const event = yield* Effect.raceFirst(Fiber.join(waiting), guard)
            if (event._tag === "None") return yield* Effect.fail(new Error(`the event stream ended before ${type}`))
            return event.value
          })
      )
    /** Runs `action` and returns the event `type` it made the supervisor append. */
    const receipt = <A, E, R>(type: EventType, action: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const wait = yield* awaiting(type)
        yield* action
        return yield* wait
      })
    return { supervisor, record, types, lifecycle, output, report: agent.report, awaiting, receipt, notified: notifier.received, captures }
  })

describe("supervisor activity under TestClock", () => {
  it.effect("a command agent that printed, then went quiet: ready after quietMs, idle after readyThresholdMs, working on new output", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.output
      yield* TestClock.adjust(3 * S - 1)
      yield* t.supervisor.cycle()
      yield* TestClock.adjust(1)
      const ready = yield* t.receipt("session.ready", t.supervisor.cycle())
      assert.strictEqual(ready.timestamp, iso(3 * S), "not ready a moment before quietMs")
      assert.deepInclude(t.record(), { status: "ready", activity: "ready", activitySince: iso(3 * S) })

      yield* TestClock.adjust(5 * MIN)
      const idle = yield* t.receipt("session.idle", t.supervisor.cycle())
      assert.strictEqual(idle.timestamp, iso(5 * MIN + 3 * S))
      assert.deepInclude(t.record(), { status: "idle", activity: "idle" })

      yield* t.output
      yield* t.receipt("session.working", t.supervisor.cycle())
      assert.deepInclude(t.record(), { status: "working", activity: "active", activitySince: iso(5 * MIN + 3 * S) })
    }).pipe(Effect.scoped))

  it.effect("orch report holds over a quiet screen until later output contradicts it; done is ready plus session.reported_done", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.output
      yield* t.report("waiting_input", "which database?")
      yield* t.receipt("session.needs_input", t.supervisor.cycle())
      assert.deepInclude(t.record().said, { by: "report", activity: "waiting_input", note: "which database?" })
      for (let minute = 1; minute <= 30; minute++) {
        yield* TestClock.adjust(MIN)
        yield* t.supervisor.cycle()
      }
      // The agent prints again, well after its report: the screen takes over.
      yield* t.output
      yield* t.receipt("session.working", t.supervisor.cycle())
      assert.deepStrictEqual(t.lifecycle(), ["session.needs_input", "session.working"], "thirty quiet minutes did not make it ready")
      assert.isTrue(t.record().said?.overruled)

      yield* TestClock.adjust(S)
      yield* t.report("done", "PR #7 is open")
      const done = yield* t.receipt("session.reported_done", t.supervisor.cycle())
      assert.deepInclude(done, { message: "PR #7 is open", data: { note: "PR #7 is open" } })
      assert.deepInclude(t.record(), { status: "ready", activity: "ready" })
      assert.deepInclude(t.record().said, { report: "done" })
    }).pipe(Effect.scoped))

  it.effect("an agent that reported active and then shows nothing for the agent-stuck threshold is stuck, and someone is told", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* t.output
      yield* t.report("active")
      yield* TestClock.adjust(5 * MIN)
      yield* t.output
      yield* t.supervisor.cycle()
      yield* TestClock.adjust(10 * MIN - 1)
      yield* t.supervisor.cycle()
      yield* TestClock.adjust(1)
      const sent = yield* t.awaiting("notification.sent")
      const stuck = yield* t.receipt("session.stuck", t.supervisor.cycle())
      assert.strictEqual(stuck.timestamp, iso(15 * MIN), "its output at 5 min was progress: not stuck a moment before 5 + 10 min")
      yield* sent
      assert.deepInclude(t.record(), { status: "stuck", activity: "active", activitySince: iso(5 * MIN) })
      assert.deepStrictEqual(t.types(), ["session.stuck", "reaction.triggered", "notification.sent"])
      assert.deepStrictEqual(t.notified.map((n) => [n.priority, n.type]), [["urgent", "reaction.agent-stuck"]])
    }).pipe(Effect.scoped))

  it.effect("a screen-reading agent (codex) is captured only after new output, and where its screen matches nothing, quiescence decides", () =>
    Effect.gen(function*() {
      const t = yield* setup({ agent: "codex", agentConfig: { quietMs: 3 * S } })
      yield* t.output
      yield* t.supervisor.cycle()
      assert.strictEqual(t.captures(), 1)
      yield* TestClock.adjust(3 * S)
      yield* t.receipt("session.ready", t.supervisor.cycle())
      assert.strictEqual(t.captures(), 2, "the first capture came in the same moment as the output: not trusted to have seen all of it")
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust(5 * S)
        yield* t.supervisor.cycle()
      }
      assert.strictEqual(t.captures(), 2, "nothing printed since: the screen is not captured again")
      yield* t.output
      yield* TestClock.adjust(S)
      yield* t.receipt("session.working", t.supervisor.cycle())
      assert.strictEqual(t.captures(), 3)
    }).pipe(Effect.scoped))
})
