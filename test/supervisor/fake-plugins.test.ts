/**
 * The supervisor on the slots' in-memory fakes (`layerTest`), under TestClock: what the runtime, agent, scm and
 * tracker say reaches the session's record, and ending a session removes its terminal and workspace (unsaved work
 * rescued first). Each test waits for its receipt: the record or the fakes' own record of what was done.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import { GROUP_WINDOW_MS } from "../../actors/rules/notification-groups.ts"
import { exitedLines } from "../../src/cli/status-view.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { Notification } from "../../src/domain/notification.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
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
import { drivenSupervisor } from "../support/supervisor.ts"

const iso = (ms: number) => new Date(ms).toISOString()

/** A supervisor over `sessions` live sessions (app-1 …), as spawns leave them, on the fakes. */
const setupWith = (sessions: number) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({
      projects: { app: { repo: "acme/app", path: join(root, "app"), agent: "command", agentConfig: { command: "true" }, scm: { plugin: "repohost" } } }
    }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
    const project = config.projects.app!
    const runtime = makeTestRuntime()
    const agent = makeTestAgent()
    const workspace = makeTestWorkspace()
    const tracker = makeTestTracker([{ id: "1", title: "Fix it", body: "", labels: [], state: { name: "In Progress", completed: false } }])
    const scm = makeTestScm()
    const plugins = ProjectPlugins.layerTest(() =>
      Layer.mergeAll(Runtime.layerTest(runtime), Agent.layerTest(agent), Workspace.layerTest(workspace), Tracker.layerTest(tracker), Scm.layerTest(scm))
    )

    const store = SessionStore.make(root)
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    // Live sessions, as a spawn leaves them: their terminals and workspaces exist in the fakes.
    const made = yield* Effect.forEach(Array.from({ length: sessions }, (_, i) => i + 1), (n) =>
      Effect.gen(function*() {
        const path = store.paths.worktree("app", `app-${n}`)
        yield* workspace.create({ project, sessionId: `app-${n}`, branch: `feat/${n}`, path })
        const handle = yield* runtime.create({ sessionId: `app-${n}`, workingDir: path, command: `test-agent app-${n}`, env: {}, unsetEnv: [] })
        yield* store.write({
          sessionId: `app-${n}`,
          projectId: "app",
          issueId: String(n),
          status: "working",
          activity: "active",
          activitySince: iso(0),
          branch: `feat/${n}`,
          workspacePath: path,
          runtime: handle,
          agent: { plugin: "test" },
          pr: null,
          createdAt: iso(0),
          updatedAt: iso(0)
        })
        return { path, handle }
      }))
    const { path, handle } = made[0]!
    const notified: Array<Notification> = []
    const router = NotifierRouter.layer(new Map([["rec", { name: "rec", notify: (n: Notification) => Effect.sync(() => void notified.push(n)) }]]), {
      urgent: ["rec"],
      action: ["rec"],
      warning: ["rec"],
      info: ["rec"]
    })
    const context = yield* Layer.build(
      Layer.mergeAll(router, SessionManager.layerNoDeps(config)).pipe(
        Layer.provideMerge(plugins),
        Layer.provideMerge(Layer.mergeAll(Layer.succeed(SessionStore, store), Layer.succeed(EventLog, events))),
        Layer.provideMerge(NodeServices.layer)
      )
    )
    const supervisor = yield* drivenSupervisor.pipe(Effect.provide(context))
    const current = () => JSON.parse(readFileSync(store.paths.record("app", "app-1"), "utf8")) as SessionRecord
    const allEvents = () =>
      existsSync(events.path)
        ? readFileSync(events.path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: string })
        : []
    const types = () => allEvents().map((e) => e.type)
    const routed = yield* NotifierRouter.use(Effect.succeed).pipe(Effect.provide(context))
    /**
     * The receipt that the actors handled all they were offered and their notifications went out; then `check` holds
     * (the record or a fake shows it), or the test fails saying what it waited for.
     */
    const until = (what: string, check: () => boolean) =>
      Effect.gen(function*() {
        yield* supervisor.drained()
        yield* routed.settled
        if (!check()) return yield* Effect.die(new Error(`no ${what} once the actors were drained; the record: ${JSON.stringify(current())}`))
      })
    const records = () => Effect.map(store.list, ({ records }) => records)
    return { supervisor, runtime, agent, workspace, tracker, scm, current, types, until, notified, handle, path, routed, records, events: allEvents }
  })
const setup = setupWith(1)

describe("supervisor on in-memory plugins (layerTest)", () => {
  it.effect("the agent's screen tells its activity while its hooks are silent; its exit, after three probes, ends it as errored", () =>
    Effect.gen(function*() {
      const t = yield* setup
      yield* t.supervisor.adopt()
      yield* t.runtime.print("app-1", "activity: waiting_input")
      yield* t.supervisor.cycle()
      yield* t.until("the screen's activity", () => t.current().activity === "waiting_input")
      assert.strictEqual(t.current().status, "needs_input")

      yield* t.runtime.exit("app-1", 3)
      for (let probe = 1; probe <= 3; probe++) yield* t.supervisor.cycle()
      yield* t.until("the exit", () => t.current().activity === "exited")
      assert.strictEqual(t.current().status, "errored")
      assert.include(t.types(), "session.exited")
      yield* t.until("the agent-exited notification", () => t.notified.some((n) => n.type === "reaction.agent-exited"))
    }))

  it.effect("an agent that dies after its start is quoted: its record, the session.exited event, the notification, orch status; secrets hidden", () =>
    Effect.gen(function*() {
      const t = yield* setup
      yield* t.supervisor.adopt()
      yield* t.runtime.print("app-1", "working on issue 1")
      yield* t.runtime.print("app-1", "")
      yield* t.runtime.print("app-1", "API error 401: key sk-ant-api03-abcdefghijklmnopqrstuv was refused")
      yield* t.runtime.print("app-1", "giving up")
      yield* t.runtime.exit("app-1", 1)
      for (let probe = 1; probe <= 3; probe++) yield* t.supervisor.cycle()
      yield* t.until("the exit", () => t.current().activity === "exited")
      const note = "working on issue 1 / API error 401: key <redacted> was refused / giving up"
      assert.strictEqual(t.current().exitNote, note)
      const exited = t.events().find((e) => e.type === "session.exited")
      assert.strictEqual(exited?.message, `the agent process ended; it printed: ${note}`)
      yield* t.until("the agent-exited notification", () => t.notified.some((n) => n.type === "reaction.agent-exited"))
      const told = t.notified.find((n) => n.type === "reaction.agent-exited")!
      assert.strictEqual(told.message.split("\n")[0], `it printed: ${note}`)
      assert.notInclude(JSON.stringify([t.current(), t.events(), t.notified]), "sk-ant-api03")
      assert.deepStrictEqual(exitedLines([t.current()]), [`app-1's agent ended; it printed: ${note} (\`orch session restore app-1\` starts it again)`])
    }))

  it.effect("40 agents found dead in one probe round: one notification at once, one naming the other 39; every session errored, every exit an event", () =>
    Effect.gen(function*() {
      const t = yield* setupWith(40)
      yield* t.supervisor.adopt()
      for (let n = 1; n <= 40; n++) yield* t.runtime.exit(`app-${n}`, 1)
      for (let probe = 1; probe <= 3; probe++) yield* t.supervisor.cycle()
      yield* t.until("the exits", () => t.types().filter((type) => type === "session.exited").length === 40)
      const exited = () => t.notified.filter((n) => n.type === "reaction.agent-exited")
      assert.strictEqual(exited().length, 1)
      yield* TestClock.adjust(GROUP_WINDOW_MS)
      yield* t.routed.settled
      assert.strictEqual(exited().length, 2)
      assert.match(exited()[1]!.title, /^39 more: /)
      assert.match(exited()[1]!.message, /^app-\d+, app-\d+, app-\d+, app-\d+, app-\d+ and 34 more; orch status shows each\.$/)
      const named = new Set([exited()[0]!.sessionId, ...(exited()[1]!.data as { sessions: Array<string> }).sessions])
      assert.strictEqual(named.size, 40, "each dead session is in one of the two")
      // Nothing is lost from what orch status reads, or from the events.
      const records = yield* t.records()
      assert.deepStrictEqual([...new Set(records.map((r) => r.status))], ["errored"])
      assert.strictEqual(records.length, 40)
    }))

  it.effect("a person merges a green, approved PR: the scm merges it, the session is merged, and its terminal and workspace go (unsaved work rescued)", () =>
    Effect.gen(function*() {
      const t = yield* setup
      t.workspace.workspaces.get(t.path)!.unsaved = { uncommitted: 2, unpushed: 0 }
      t.scm.views.set("feat/1", {
        pr: { number: 4, url: "https://github.com/acme/app/pull/4", state: "open" },
        checks: "passing",
        review: "approved",
        mergeable: true,
        failingChecks: [],
        reviewComments: []
      })
      yield* t.supervisor.adopt()
      yield* t.supervisor.pollPullRequests()
      yield* t.until("the PR seen", () => t.current().pr?.number === 4)
      assert.deepStrictEqual(yield* t.supervisor.merge("app-1"), { prNumber: 4 })
      assert.deepStrictEqual(t.scm.merges, [{ prNumber: 4, method: "squash" }])
      yield* t.until("the PR merged", () => t.current().pr?.state === "merged")

      yield* t.supervisor.cycle()
      yield* t.until("the session cleaned", () => t.current().endedAt !== undefined)
      assert.strictEqual(t.current().status, "merged")
      assert.isFalse(t.runtime.terminals.has("app-1"), "its terminal was destroyed")
      assert.isFalse(t.workspace.workspaces.has(t.path), "its workspace was removed")
      assert.deepStrictEqual(t.workspace.rescues.map((r) => r.ref), ["refs/orch/rescue/app-1"])
      assert.includeMembers(t.types(), ["session.rescued", "session.cleaned"])
    }))

  it.effect("an issue the tracker says is done ends its session at the next issue poll", () =>
    Effect.gen(function*() {
      const t = yield* setup
      yield* t.supervisor.adopt()
      yield* t.supervisor.pollIssues()
      assert.isUndefined(t.current().endedAt, "in progress: it runs on")
      t.tracker.issues.set("1", { ...t.tracker.issues.get("1")!, state: { name: "Done", completed: true } })
      yield* t.supervisor.pollIssues()
      yield* t.until("the session cleaned", () => t.current().endedAt !== undefined)
      assert.strictEqual(t.current().status, "done")
      assert.isFalse(t.runtime.terminals.has("app-1"))
      assert.isFalse(t.workspace.workspaces.has(t.path))
    }))
})
