/**
 * A spawn whose process died half-way (an `orch spawn` killed with `kill -9` while a supervisor runs) is undone by
 * the supervisor's probe loop within one cycle, on the slots' in-memory fakes under TestClock: its terminal ends,
 * what was written in its worktree is rescued before the worktree goes, the branch it made goes unless it holds
 * commits, its session directory goes, and `session.reconciled` says so. The receipt is that event.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import { PROBE_INTERVAL } from "../../actors/probe-cycle.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { OrchEvent } from "../../src/domain/event.ts"
import type { SessionRecord, SpawnJournal } from "../../src/domain/session.ts"
import { Agent, makeTestAgent } from "../../src/plugins/agent/Agent.ts"
import { ProjectPlugins } from "../../src/plugins/ProjectPlugins.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { makeTestScm, Scm } from "../../src/plugins/scm/Scm.ts"
import { makeTestTracker, Tracker } from "../../src/plugins/tracker/Tracker.ts"
import { makeTestWorkspace, Workspace } from "../../src/plugins/workspace/Workspace.ts"
import { SessionManager } from "../../src/sessions/SessionManager.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { processStartTime } from "../../src/store/process-liveness.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"
import { drivenSupervisor } from "../support/supervisor.ts"

const iso = (ms: number) => new Date(ms).toISOString()
/** A process that ran and was reaped: its pid names nothing now (the spawner, killed). */
const deadPid = () => spawnSync("true").pid!

const setup = Effect.gen(function*() {
  const root = yield* tempDir()
  const config = yield* validateConfig({
    projects: { app: { repo: "acme/app", path: join(root, "app"), agent: "command", agentConfig: { command: "true" } } }
  }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
  const project = config.projects.app!
  const runtime = makeTestRuntime()
  const workspace = makeTestWorkspace()
  const plugins = ProjectPlugins.layerTest(() =>
    Layer.mergeAll(
      Runtime.layerTest(runtime),
      Agent.layerTest(makeTestAgent()),
      Workspace.layerTest(workspace),
      Tracker.layerTest(makeTestTracker([])),
      Scm.layerTest(makeTestScm())
    )
  )
  const store = SessionStore.make(root)
  const events = yield* EventLog.make(join(root, "events.jsonl"))
  const router = NotifierRouter.layer(new Map(), { urgent: [], action: [], warning: [], info: [] })
  const context = yield* Layer.build(
    Layer.mergeAll(router, SessionManager.layerNoDeps(config)).pipe(
      Layer.provideMerge(plugins),
      Layer.provideMerge(Layer.mergeAll(Layer.succeed(SessionStore, store), Layer.succeed(EventLog, events))),
      Layer.provideMerge(NodeServices.layer)
    )
  )
  const supervisor = yield* drivenSupervisor.pipe(Effect.provide(context))

  /**
   * A spawn of issue `issue` as `sessionId`, as far as its journal got: its worktree made (branch made by it), its
   * terminal started when `terminal`, by the process `spawner`.
   */
  const halfSpawned = (sessionId: string, issue: string, spawner: Pick<SpawnJournal, "pid" | "startTime">, options: { readonly terminal: boolean }) =>
    Effect.gen(function*() {
      const path = store.paths.worktree("app", sessionId)
      const branch = `feat/${issue}`
      yield* workspace.create({ project, sessionId, branch, path })
      const handle = options.terminal
        ? yield* runtime.create({ sessionId, workingDir: path, command: "test-agent", env: {}, unsetEnv: [] })
        : undefined
      const record: SessionRecord = {
        sessionId,
        projectId: "app",
        issueId: issue,
        status: "spawning",
        activity: "unknown",
        branch,
        workspacePath: path,
        runtime: null,
        agent: { plugin: "test" },
        pr: null,
        createdAt: iso(0),
        updatedAt: iso(0),
        // A spawn journals its terminal with its worktree, before making either: one killed before its terminal names it too.
        spawn: { ...spawner, startedAt: iso(0), workspace: path, createdBranch: true, runtime: handle ?? { plugin: runtime.name, id: sessionId, data: {} } }
      }
      yield* store.write(record)
      return { path, branch }
    })

  /** Waits for `session.reconciled` of `sessionId` (a real-time guard of 5 s names a missing receipt). */
  const reconciled = (sessionId: string) =>
    Effect.map(
      Effect.forkChild(events.stream.pipe(Stream.filter((e) => e.type === "session.reconciled" && e.sessionId === sessionId), Stream.runHead), {
        startImmediately: true
      }),
      (waiting) =>
        Effect.gen(function*() {
          const guard = Effect.callback<never, Error>((resume) => {
            const timer = setTimeout(() => resume(Effect.fail(new Error(`no session.reconciled of ${sessionId} within 5 s`))), 5000)
            return Effect.sync(() => clearTimeout(timer))
          })
          const event = yield* Effect.raceFirst(Fiber.join(waiting), guard)
          if (event._tag === "None") return yield* Effect.fail(new Error("the event stream ended"))
          return event.value as OrchEvent
        })
    )

  /** The supervisor's probe loop, as `orch start` runs it (Supervisor.layer), after adoption. */
  const run = Effect.gen(function*() {
    yield* supervisor.adopt()
    yield* supervisor.loops.probe.forever(Effect.suspend(() => supervisor.cycle()), Effect.succeed(Duration.toMillis(PROBE_INTERVAL))).pipe(
      Effect.forkScoped
    )
  })
  const retired = () => (existsSync(join(store.paths.project("app"), "retired")) ? readFileSync(join(store.paths.project("app"), "retired"), "utf8") : "")
  return { store, runtime, workspace, halfSpawned, reconciled, run, retired }
})

describe("the supervisor undoes an interrupted spawn within a probe cycle", () => {
  it.effect("its terminal ends, what was written is rescued, its worktree, its branch and its record go; a spawn under way stays", () =>
    Effect.gen(function*() {
      const t = yield* setup
      yield* t.run
      // Killed after it started the terminal, the agent having written a file; and another spawn, still under way.
      const dead = yield* t.halfSpawned("app-1", "1", { pid: deadPid() }, { terminal: true })
      t.workspace.workspaces.get(dead.path)!.unsaved = { uncommitted: 1, unpushed: 0 }
      const me = processStartTime(process.pid)
      const alive = yield* t.halfSpawned("app-2", "2", { pid: process.pid, ...(me !== undefined ? { startTime: me } : {}) }, { terminal: true })
      assert.isTrue(existsSync(t.store.paths.record("app", "app-1")))

      const receipt = yield* t.reconciled("app-1")
      yield* TestClock.adjust(PROBE_INTERVAL)
      const event = yield* receipt

      assert.deepInclude(event, { type: "session.reconciled", sessionId: "app-1", projectId: "app", issueId: "1" })
      assert.deepInclude(event.data, { terminalEnded: true, worktreeRemoved: true, branchDeleted: true, rescueRef: "refs/orch/rescue/app-1" })
      assert.match(event.message!, /^undid app-1, a spawn of issue 1 interrupted when its process \(\d+\) died: ended its terminal, removed its worktree/)
      assert.isFalse(t.runtime.terminals.has("app-1"), "its terminal ended")
      assert.deepStrictEqual(t.workspace.rescues.map((r) => [r.path, r.ref]), [[dead.path, "refs/orch/rescue/app-1"]], "rescued before removal")
      assert.isFalse(t.workspace.workspaces.has(dead.path))
      // Nothing was committed on it: the rescue holds the written file, the branch held nothing more.
      assert.isFalse(t.workspace.branches.has(dead.branch))
      assert.isFalse(existsSync(t.store.paths.session("app", "app-1")))
      assert.include(t.retired(), "app-1", "its id is retired: refs/orch/rescue/app-1 stays that spawn's")

      // The spawn whose process lives is its process's to finish.
      assert.strictEqual((yield* t.store.read("app-2")).status, "spawning")
      assert.isTrue(t.runtime.terminals.has("app-2"))
      assert.isTrue(t.workspace.workspaces.has(alive.path))
    }))

  it.effect("a branch that holds commits stays (rescued too); a spawn killed before its journaled terminal has none to end; its id is released, not retired, when nothing was rescued", () =>
    Effect.gen(function*() {
      const t = yield* setup
      yield* t.run
      const committed = yield* t.halfSpawned("app-1", "1", { pid: deadPid() }, { terminal: false })
      t.workspace.workspaces.get(committed.path)!.unsaved = { uncommitted: 0, unpushed: 2 }
      const clean = yield* t.halfSpawned("app-2", "2", { pid: process.pid, startTime: "1" }, { terminal: false })

      const receipts = [yield* t.reconciled("app-1"), yield* t.reconciled("app-2")]
      yield* TestClock.adjust(PROBE_INTERVAL)
      const [first, second] = [yield* receipts[0]!, yield* receipts[1]!]

      assert.deepInclude(first.data, { terminalEnded: false, worktreeRemoved: true, branchDeleted: false, rescueRef: "refs/orch/rescue/app-1" })
      assert.isTrue(t.workspace.branches.has(committed.branch), "the branch holds work: it stays")
      // app-2's journal names this test's pid with another start time: a reused pid is not its spawner.
      assert.deepInclude(second.data, { worktreeRemoved: true, branchDeleted: true })
      assert.notProperty(second.data, "rescueRef")
      assert.isFalse(t.workspace.branches.has(clean.branch))
      assert.isFalse(existsSync(t.store.paths.session("app", "app-2")))
      assert.notInclude(t.retired(), "app-2", "nothing rescued: the id is released, not retired")
    }))
})
