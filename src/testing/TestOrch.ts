/**
 * orch whole, in this process, on the in-memory plugins and the TestClock: the composition `orch start` runs
 * (`Orch.layer`: SessionManager, Supervisor and its loops, the notifier router), with every slot the test gives no
 * Layer of its own replaced by a fake it can drive and read: a runtime whose agents are scripted, a workspace, a
 * tracker and an scm whose pull requests the test sets, a notifier that records. No tmux, git, network or wall time:
 * the supervisor's probe cycle, polls and reactions run as the test advances the clock. Records and the event log
 * are files, in a directory of their own (in memory where the system has one) that goes when the test's scope closes.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { orchLayer, type OrchOptions } from "../../actors/composition.ts"
import { Supervisor } from "../../actors/supervisor.ts"
import { Host, type HostShape } from "../config/host.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { validateConfig } from "../config/validate.ts"
import type { OrchEvent } from "../domain/event.ts"
import type { Notification } from "../domain/notification.ts"
import type { SessionRecord } from "../domain/session.ts"
import { Agent, makeTestAgent, type TestAgent } from "../plugins/agent/Agent.ts"
import type { ProjectSlot } from "../plugins/choice.ts"
import type { LayerSlot, SlotLayer } from "../plugins/layers.ts"
import { makeTestNotifier, Notifier, type TestNotifier } from "../plugins/notifier/Notifier.ts"
import { AGENTS, RUNTIMES, SCMS, TRACKERS, WORKSPACES } from "../plugins/registry.ts"
import { makeTestRuntime, Runtime, RuntimeError, type TestRuntime } from "../plugins/runtime/Runtime.ts"
import { makeTestScm, Scm, type TestScm } from "../plugins/scm/Scm.ts"
import { type Issue, makeTestTracker, type TestTracker, Tracker } from "../plugins/tracker/Tracker.ts"
import { makeTestWorkspace, type TestWorkspace, Workspace } from "../plugins/workspace/Workspace.ts"
import { SessionManager } from "../sessions/SessionManager.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { type PullRequestState, pullRequestView } from "./pull-request.ts"
import { type AgentStep, type ScriptedAgent, scriptedAgent } from "./scripted-agent.ts"

export interface TestOrchOptions extends OrchOptions {
  /**
   * The config as orchestrator.yaml holds it (validated as `orch` validates a file). A project's `path` is never
   * touched. Without `notificationRouting` (and with the recording notifier), every priority goes to it once.
   */
  readonly config: unknown
  /** The fake tracker's issues; a spawn of one it does not have adds it (titled "Issue <id>"). */
  readonly issues?: ReadonlyArray<Issue>
  /** What each session's agent does once its terminal starts, each step after its wait on the clock. */
  readonly script?: (sessionId: string) => ReadonlyArray<AgentStep>
}

export interface TestOrchShape {
  readonly config: OrchestratorConfig
  /** Where the records and the event log are. */
  readonly dataDir: string
  /** The fakes that stand in every slot the options gave no Layer for (each a slot's `layerTest` double). */
  readonly runtime: TestRuntime
  readonly agent: TestAgent
  readonly workspace: TestWorkspace
  readonly tracker: TestTracker
  readonly scm: TestScm
  readonly notifier: TestNotifier
  readonly sessions: SessionManager["Service"]
  readonly supervisor: Supervisor["Service"]
  /** Spawns a session for `issue` as `orch spawn` does, moving the clock on until the spawn has ended. */
  readonly spawn: (project: string, issue: string) => Effect.Effect<SessionRecord, SpawnFailure>
  /** The agent of a session, to drive by hand. */
  readonly agentOf: (sessionId: string) => ScriptedAgent
  /** What the scm says of the session's pull request from now on (the supervisor sees it at its next PR poll). */
  readonly setPullRequest: (sessionId: string, state: PullRequestState) => Effect.Effect<void, RecordError>
  /** Moves the clock on: every sleep due meanwhile wakes, in order, and what it starts runs before the next. */
  readonly advance: (duration: Duration.Input) => Effect.Effect<void>
  readonly record: (sessionId: string) => Effect.Effect<SessionRecord, RecordError>
  /** The event log so far. */
  readonly events: Effect.Effect<ReadonlyArray<OrchEvent>, RecordError>
  /** What the recording notifier received so far. */
  readonly notifications: Effect.Effect<ReadonlyArray<Notification>>
}

/** Why TestOrch could not be made: the config is not valid, or a Layer the test gave failed. */
export type TestOrchError = Effect.Error<ReturnType<typeof validateConfig>> | Layer.Error<ReturnType<typeof orchLayer>>
type RecordError = Effect.Error<ReturnType<SessionStore["Service"]["read"]>>
type SpawnFailure = Effect.Error<ReturnType<SessionManager["Service"]["spawn"]>> | Error

/** How far a spawn moves the clock at a time while it waits on it (the agent's first moments), and at most. */
const SPAWN_STEP = Duration.millis(50)
const SPAWN_LIMIT = Duration.minutes(2)

/**
 * Without a routing of its own, every notification goes once to the recording notifier: a notifier `test` (whose
 * plugin the recorder replaces), each priority routed to it alone.
 */
const withRouting = (config: unknown): unknown =>
  config !== null && typeof config === "object" && !Array.isArray(config) && !("notificationRouting" in config)
    ? {
      ...config,
      notifiers: { ...("notifiers" in config && typeof config.notifiers === "object" ? config.notifiers : {}), test: { plugin: "test" } },
      notificationRouting: { urgent: ["test"], action: ["test"], warning: ["test"], info: ["test"] }
    }
    : config

/** The agent `layer` provides, with no program to look for: a spawn checks that an agent's `commandLine` is installed. */
const withoutProgram = <R>(layer: Layer.Layer<Agent, unknown, R>): Layer.Layer<Agent, unknown, R> =>
  Layer.effect(
    Agent,
    Effect.map(Layer.build(layer), (context) => {
      const { commandLine: _, ...agent } = Context.get(context, Agent)
      return agent
    })
  )
const withoutProgramOf = <R>(layer: SlotLayer<"agent", R>): SlotLayer<"agent", R> =>
  typeof layer === "function" ? (project) => withoutProgram(layer(project)) : withoutProgram(layer)

/**
 * The test's own agents, on the in-memory runtime: it runs no program, so none is looked for on PATH (an agent's
 * `commandLine` is for a real terminal's spawn).
 */
const programless = (options: TestOrchOptions): OrchOptions => ({
  ...options,
  replace: { ...options.replace, ...(options.replace?.agent !== undefined ? { agent: withoutProgramOf(options.replace.agent) } : {}) },
  register: {
    ...options.register,
    ...(options.register?.agent !== undefined
      ? { agent: Object.fromEntries(Object.entries(options.register.agent).map(([name, layer]) => [name, withoutProgramOf(layer)])) }
      : {})
  }
})

/**
 * Where the records go: memory where the system offers a directory of it (Linux's /dev/shm), else the temp directory.
 * They are a test's scratch: orch's atomic writes sync each file to disk, which on a disk costs milliseconds each.
 */
const scratchDir = (): string => {
  try {
    accessSync("/dev/shm", constants.W_OK)
    return "/dev/shm"
  } catch {
    return tmpdir()
  }
}

const make = Effect.fnUntraced(function*(options: TestOrchOptions) {
  const clock = yield* Clock.clockWith(Effect.succeed)
  if (!("adjust" in clock)) {
    return yield* Effect.die(new Error("TestOrch runs on the TestClock: run the test with it.effect (@effect/vitest) or TestOrch.run"))
  }
  const dataDir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(scratchDir(), "orch-test-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  const host: HostShape = { env: { ORCH_HOME: dataDir }, homeDir: dataDir, cwd: dataDir }
  /** A slot the test gave a Layer of its own for, for every project, or under a name the config uses. */
  const given = (slot: LayerSlot) => options.replace?.[slot] !== undefined || Object.keys(options.register?.[slot] ?? {}).length > 0
  const raw = given("notifier") ? options.config : withRouting(options.config)
  const config = yield* validateConfig(raw).pipe(Effect.provideService(Host, host))
  const registered = (slot: LayerSlot, name: string) => Object.hasOwn(options.register?.[slot] ?? {}, name)
  const usesOwnRuntime = options.replace?.runtime !== undefined || Object.values(config.projects).some((p) => registered("runtime", p.runtime))
  const base = makeTestRuntime()
  const agent = makeTestAgent()
  const workspace = makeTestWorkspace()
  const tracker = makeTestTracker(options.issues)
  const scm = makeTestScm()
  const notifier = makeTestNotifier()
  const scope = yield* Effect.scope

  /** Where a session's agent writes its activity (its hooks, `orch report`): known once its record is. */
  const activityFile = (sessionId: string) =>
    Effect.suspend(() => {
      const store = Context.get(context, SessionStore)
      return Effect.map(store.read(sessionId), (record) => store.paths.activity(record.projectId, sessionId))
    }).pipe(Effect.mapError((error) => new RuntimeError({ plugin: "test", operation: "activity file", reason: error.message })))
  const agentOf = (sessionId: string) => scriptedAgent(base, sessionId, activityFile(sessionId))
  // The runtime starts each new terminal's script, in the test's scope.
  const runtime: TestRuntime = {
    ...base,
    create: (spec) =>
      Effect.tap(base.create(spec), () => {
        const steps = options.script?.(spec.sessionId) ?? []
        return steps.length === 0 ? Effect.void : Effect.forkIn(Effect.orDie(agentOf(spec.sessionId).run(steps)), scope)
      })
  }
  const fakes = {
    runtime: Layer.succeed(Runtime, runtime),
    agent: Layer.succeed(Agent, agent),
    workspace: Layer.succeed(Workspace, workspace),
    tracker: Layer.succeed(Tracker, tracker),
    scm: Layer.succeed(Scm, scm),
    notifier: Layer.succeed(Notifier, notifier)
  }
  // A fake stands in, in a slot the test did not replace, wherever the config names what orch would make there (a
  // built-in, a plugin module) and the test registered nothing under that name. A name orch does not know stays
  // unknown, and fails as it does outside a test.
  const known: Record<ProjectSlot, ReadonlyArray<string>> = {
    runtime: Object.keys(RUNTIMES),
    agent: Object.keys(AGENTS),
    workspace: Object.keys(WORKSPACES),
    tracker: Object.keys(TRACKERS),
    scm: Object.keys(SCMS)
  }
  const fakeNames = (slot: ProjectSlot) => [...known[slot], ...Object.keys(config.plugins ?? {})].filter((name) => !registered(slot, name))
  const own = usesOwnRuntime ? options : programless(options)
  const register = Object.fromEntries(
    (Object.keys(known) as Array<ProjectSlot>).map((slot) => [
      slot,
      { ...Object.fromEntries(fakeNames(slot).map((name) => [name, fakes[slot]])), ...own.register?.[slot] }
    ])
  )
  const replace = {
    ...(given("notifier") ? {} : { notifier: fakes.notifier }),
    ...own.replace
  }
  const context: Context.Context<SessionStore | EventLog | SessionManager | Supervisor> = yield* Layer.build(
    orchLayer(config, { replace, register: { ...own.register, ...register } })
  ).pipe(Effect.provideService(Host, host))
  const store = Context.get(context, SessionStore)
  const events = Context.get(context, EventLog)
  const sessions = Context.get(context, SessionManager)

  const spawn = Effect.fnUntraced(function*(project: string, issue: string) {
    const id = issue.replace(/^#/, "")
    if (!tracker.issues.has(id)) tracker.issues.set(id, { id, title: `Issue ${id}`, body: "", labels: [] })
    const fiber = yield* Effect.forkChild(sessions.spawn(project, { _tag: "Issue", issue }))
    for (let waited = 0; fiber.pollUnsafe() === undefined; waited += Duration.toMillis(SPAWN_STEP)) {
      if (waited >= Duration.toMillis(SPAWN_LIMIT)) {
        yield* Fiber.interrupt(fiber)
        return yield* Effect.fail(new Error(`the spawn of issue ${issue} in ${project} had not ended after ${Duration.format(SPAWN_LIMIT)} on the clock`))
      }
      yield* TestClock.adjust(SPAWN_STEP)
    }
    return (yield* Fiber.join(fiber)).record
  })

  return TestOrch.of({
    config,
    dataDir,
    runtime,
    agent,
    workspace,
    tracker,
    scm,
    notifier,
    sessions,
    supervisor: Context.get(context, Supervisor),
    spawn,
    agentOf,
    setPullRequest: (sessionId, state) =>
      Effect.map(store.read(sessionId), (record) => {
        const project = Object.values(config.projects).find((p) => p.id === record.projectId)
        const number = state.number ?? scm.views.get(record.branch)?.pr?.number ?? scm.views.size + 1
        scm.views.set(record.branch, pullRequestView(project?.repo ?? record.projectId, number, state))
      }),
    advance: (duration) => TestClock.adjust(duration),
    record: store.read,
    events: Effect.map(events.linesFrom(0), (lines) => lines.map((line) => JSON.parse(line) as OrchEvent)),
    notifications: Effect.sync(() => [...notifier.received])
  })
})

export class TestOrch extends Context.Service<TestOrch, TestOrchShape>()("orch/testing/TestOrch") {
  /**
   * orch on the fakes, in the current scope (the test's). Needs the TestClock. Fails when the config is not valid,
   * or a notifier Layer the test gave cannot be built.
   */
  static readonly make = (options: TestOrchOptions): Effect.Effect<TestOrchShape, TestOrchError, Scope.Scope> => make(options)
  /** The same, as a Layer. */
  static readonly layer = (options: TestOrchOptions): Layer.Layer<TestOrch, TestOrchError> => Layer.effect(TestOrch, make(options))
  /** Runs a test outside a test runner: in a scope of its own, on a TestClock of its own. */
  static readonly run = <A, E, R>(test: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Scope.Scope>> =>
    test.pipe(Effect.scoped, Effect.provide(TestClock.layer()))
}
