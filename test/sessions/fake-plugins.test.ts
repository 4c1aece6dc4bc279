/**
 * The session procedures on the slots' in-memory fakes (`layerTest`), under TestClock: a spawn asks the tracker,
 * makes the workspace and the terminal with the agent's launch, and the project's plugins are built once for all
 * procedures; send and kill reach the same terminal.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import { Agent, makeTestAgent } from "../../src/plugins/agent/Agent.ts"
import { ProjectPlugins } from "../../src/plugins/ProjectPlugins.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { makeTestScm, Scm } from "../../src/plugins/scm/Scm.ts"
import { makeTestTracker, Tracker } from "../../src/plugins/tracker/Tracker.ts"
import { makeTestWorkspace, Workspace } from "../../src/plugins/workspace/Workspace.ts"
import { SessionManager } from "../../src/sessions/SessionManager.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"

describe("session procedures on in-memory plugins (layerTest)", () => {
  it.effect("spawn, send and kill: tracker, workspace, agent and terminal as the fakes recorded them, the plugins built once", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const config = yield* validateConfig({
        projects: { app: { repo: "acme/app", path: join(root, "app"), agent: "command", agentConfig: { command: "true" } } }
      }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
      const runtime = makeTestRuntime()
      const agent = makeTestAgent()
      const workspace = makeTestWorkspace()
      const tracker = makeTestTracker([{ id: "7", title: "Make it fast", body: "It is slow.", labels: [] }])
      const builds: Array<string> = []
      const plugins = ProjectPlugins.layerTest((project) =>
        Layer.mergeAll(
          Runtime.layerTest(runtime),
          Agent.layerTest(agent),
          Workspace.layerTest(workspace),
          Tracker.layerTest(tracker),
          Scm.layerTest(makeTestScm()),
          Layer.effectDiscard(Effect.sync(() => builds.push(project.id)))
        )
      )
      const store = SessionStore.make(root)
      // Built in the test's scope, which owns the plugins.
      const context = yield* Layer.build(
        SessionManager.layerNoDeps(config).pipe(
          Layer.provideMerge(plugins),
          Layer.provideMerge(Layer.mergeAll(Layer.succeed(SessionStore, store), Layer.succeed(EventLog, yield* EventLog.make(join(root, "events.jsonl"))))),
          Layer.provideMerge(NodeServices.layer)
        )
      )
      const sessions = Context.get(context, SessionManager)
      /**
       * Lets the procedure run until `check` holds: a turn of the event loop at a time (`setImmediate`), so that its
       * file writes in the thread pool land; yielding to the fibers alone never lets them.
       */
      const until = (what: string, check: () => boolean) =>
        Effect.gen(function*() {
          for (let turn = 0; turn < 20_000 && !check(); turn++) yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
          if (!check()) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
        })

      const spawning = yield* sessions.spawn("app", { _tag: "Issue", issue: "7" }).pipe(Effect.forkChild)
      // The spawn watches the agent's first moments (on the clock) once its terminal exists.
      yield* until("the terminal", () => runtime.terminals.has("app-1"))
      yield* TestClock.adjust("1 second")
      const { record } = yield* Fiber.join(spawning)
      assert.strictEqual(record.status, "working")
      assert.deepStrictEqual(record.issue, { title: "Make it fast" })
      assert.strictEqual(record.branch, "feat/7")
      assert.deepStrictEqual(workspace.workspaces.get(record.workspacePath)?.branch, "feat/7")
      assert.strictEqual(runtime.terminals.get("app-1")?.spec.command, "test-agent app-1")
      assert.strictEqual(runtime.terminals.get("app-1")?.spec.workingDir, record.workspacePath)
      assert.deepStrictEqual(agent.launches.map((context) => context.issueId), ["7"])

      yield* sessions.send("app-1", "also the tests")
      assert.deepStrictEqual(runtime.terminals.get("app-1")?.sent, ["also the tests"])

      const killed = yield* sessions.kill("app-1")
      assert.strictEqual(killed.record.status, "killed")
      assert.isFalse(runtime.terminals.has("app-1"))
      assert.isFalse(workspace.workspaces.has(record.workspacePath))
      assert.deepStrictEqual(builds, ["app"], "one build of the project's plugins for every procedure")
    }))
})
