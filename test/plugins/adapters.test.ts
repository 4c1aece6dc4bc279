import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ProjectConfig } from "../../src/config/schema.ts"
import { agentFromPlugin, runtimeFromPlugin, scmFromPlugin, trackerFromPlugin, workspaceFromPlugin } from "../../src/plugins/adapters.ts"
import type { AgentContext } from "../../src/plugins/agent/Agent.ts"
import type { Slot } from "../../src/plugins/loader.ts"

const loaded = (slot: Slot, component: Record<string, unknown>) => ({
  manifest: { name: "fx", slot, description: "a test component", version: "1.0.0" },
  component
})
const project = { key: "app", id: "app", path: "/src/app", defaultBranch: "main", repo: "acme/app" } as unknown as ProjectConfig
const context = { sessionId: "app-1", issueId: "1", branch: "feat/1", project } as unknown as AgentContext
const launchSpec = { sessionId: "app-1", workingDir: "/w", command: "true", env: {}, unsetEnv: [] }

describe("plugin components: what they return is decoded", () => {
  it.effect("runtime: a handle needs a string id; getOutput a string; isAlive a boolean", () =>
    Effect.gen(function*() {
      const good = runtimeFromPlugin(loaded("runtime", {
        create: async () => ({ id: "r-1" }),
        getOutput: () => "screen",
        isAlive: () => false
      }))
      const handle = yield* good.create(launchSpec)
      assert.deepStrictEqual(handle, { plugin: "fx", id: "r-1", data: {} })
      assert.strictEqual(yield* good.capture(handle), "screen")
      assert.deepStrictEqual([...(yield* good.probe([handle]))], [["r-1", { _tag: "Gone" }]])

      const bad = runtimeFromPlugin(loaded("runtime", { create: () => ({ id: 7 }), getOutput: () => 42, isAlive: () => "yes" }))
      assert.strictEqual((yield* Effect.flip(bad.create(launchSpec))).message, "fx: create failed: it returned an unexpected value: id: Expected string, got 7")
      assert.strictEqual((yield* Effect.flip(bad.create(launchSpec)))._tag, "RuntimeError")
      assert.strictEqual((yield* Effect.flip(bad.capture(handle))).message, "fx: getOutput failed: it returned an unexpected value: Expected string, got 42")
      assert.strictEqual(
        (yield* Effect.flip(bad.probe([handle]))).message,
        "fx: isAlive failed: it returned an unexpected value: Expected boolean, got \"yes\""
      )
    }))

  it.effect("runtime: lastOutputAt, when a live session's runtime has it, is a time in ms (or undefined: it cannot tell)", () =>
    Effect.gen(function*() {
      const handle = { plugin: "fx", id: "r-1", data: {} }
      const at = (lastOutputAt: () => unknown) =>
        runtimeFromPlugin(loaded("runtime", { create: () => ({ id: "r-1" }), isAlive: () => true, lastOutputAt })).probe([handle])
      assert.deepStrictEqual((yield* at(async () => 1_700_000_000_123)).get("r-1"), { _tag: "Alive", lastOutputAt: 1_700_000_000_123 })
      assert.deepStrictEqual((yield* at(() => undefined)).get("r-1"), { _tag: "Alive" })
      assert.strictEqual(
        (yield* Effect.flip(at(() => "soon"))).message,
        "fx: lastOutputAt failed: it returned an unexpected value: Expected number | undefined, got \"soon\""
      )
      const dead = runtimeFromPlugin(loaded("runtime", { create: () => ({ id: "r-1" }), isAlive: () => false, lastOutputAt: () => "never asked" }))
      assert.deepStrictEqual((yield* dead.probe([handle])).get("r-1"), { _tag: "Gone" })
    }))

  it.effect("agent: a command line, or { command, env?, initialMessage? } with string variables", () =>
    Effect.gen(function*() {
      const asString = agentFromPlugin(loaded("agent", { launch: () => "run-agent", activityFromScreen: () => "dancing" }))
      assert.deepStrictEqual(yield* asString.launch(context), { command: "run-agent", env: {} })
      assert.strictEqual(asString.activityFromScreen("anything"), undefined, "not an activity")
      const asObject = agentFromPlugin(loaded("agent", {
        launch: () => Effect.succeed({ command: "a", env: { X: "1" }, initialMessage: "go" }),
        activityFromScreen: () => "blocked"
      }))
      assert.deepStrictEqual(yield* asObject.launch(context), { command: "a", env: { X: "1" }, initialMessage: "go" })
      assert.deepStrictEqual(yield* asObject.resume(context), { command: "a", env: { X: "1" }, initialMessage: "go" }, "resume falls back to launch")
      assert.strictEqual(asObject.activityFromScreen("anything"), "blocked")
      const bad = agentFromPlugin(loaded("agent", { launch: () => ({ command: "a", env: { X: 1 } }) }))
      const error = yield* Effect.flip(bad.launch(context))
      assert.strictEqual(error._tag, "AgentError")
      assert.include(error.message, "agent fx: launch failed: it returned an unexpected value: ")
      assert.include(error.message, "env.X: Expected string, got 1")
    }))

  it.effect("workspace: create may return nothing; unsavedWork counts default to 0; rescue gets orch's message and returns the commit", () =>
    Effect.gen(function*() {
      const messages: Array<string> = []
      const ws = workspaceFromPlugin(loaded("workspace", {
        create: () => undefined,
        destroy: () => undefined,
        unsavedWork: () => ({ uncommitted: 2 }),
        rescue: (_project: unknown, _path: string, _ref: string, message: string) => {
          messages.push(message)
          return "abc123"
        },
        hasBranch: () => "no"
      }))
      assert.deepStrictEqual(
        yield* ws.create({ project, sessionId: "app-1", branch: "feat/1", path: "/w/app-1" }),
        { path: "/w/app-1", branch: "feat/1", createdBranch: false, warnings: [] }
      )
      assert.deepStrictEqual(yield* ws.unsavedWork(project, "/w/app-1"), { uncommitted: 2, unpushed: 0 })
      assert.strictEqual(yield* ws.rescue(project, "/w/app-1", "refs/orch/rescue/app-1", "orch: work saved from app-1 (issue 1)"), "abc123")
      assert.deepStrictEqual(messages, ["orch: work saved from app-1 (issue 1)"])
      assert.strictEqual(
        (yield* Effect.flip(ws.hasBranch(project, "feat/1"))).message,
        "fx: hasBranch: it returned an unexpected value: Expected boolean, got \"no\""
      )
    }))

  it.effect("tracker: null is no such issue; a null body is empty; states come as an object or a Map", () =>
    Effect.gen(function*() {
      const tracker = trackerFromPlugin(loaded("tracker", {
        getIssue: async (id: string) => (id === "404" ? null : id === "bad" ? { title: 3 } : { id: 12, title: "T", body: null }),
        issueStates: (ids: ReadonlyArray<string>) => new Map(ids.map((id) => [id, { name: "Done", completed: true }]))
      }))
      assert.deepStrictEqual(yield* tracker.getIssue("12"), { id: "12", title: "T", body: "", labels: [] })
      assert.strictEqual((yield* Effect.flip(tracker.getIssue("404")))._tag, "IssueNotFound")
      const bad = yield* Effect.flip(tracker.getIssue("bad"))
      assert.strictEqual(bad._tag, "TrackerUnavailable")
      assert.strictEqual(bad.message, "fx unavailable: it returned an unexpected value: title: Expected string, got 3")
      assert.deepStrictEqual([...(yield* tracker.issueStates!(["1"]))], [["1", { name: "Done", completed: true }]])
      const fromObject = trackerFromPlugin(loaded("tracker", { getIssue: () => null, issueStates: () => ({ "2": { name: "Todo" } }) }))
      assert.deepStrictEqual([...(yield* fromObject.issueStates!(["2"]))], [["2", { name: "Todo", completed: false }]])
    }))

  it.effect("scm: nothing is no pull request; keys left out are unknown; a wrong value is an error", () =>
    Effect.gen(function*() {
      const none = scmFromPlugin(loaded("scm", { observe: () => undefined, merge: () => undefined }))
      assert.deepStrictEqual(yield* none.observe("feat/1"), { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] })
      const some = scmFromPlugin(loaded("scm", { observe: () => ({ pr: { number: 1, url: "u", state: "open" }, checks: "passing" }), merge: () => undefined }))
      assert.deepStrictEqual(yield* some.observe("feat/1"), {
        pr: { number: 1, url: "u", state: "open" },
        checks: "passing",
        review: null,
        mergeable: null,
        failingChecks: [],
        reviewComments: []
      })
      const bad = scmFromPlugin(loaded("scm", { observe: () => ({ checks: "green" }), merge: () => undefined }))
      const error = yield* Effect.flip(bad.observe("feat/1"))
      assert.strictEqual(error._tag, "ScmError")
      assert.include(error.message, "fx: observe failed: it returned an unexpected value: checks: Expected ")
    }))
})
