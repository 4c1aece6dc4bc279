/**
 * TestOrch (orch/testing): orch whole in-process on the TestClock. A scripted agent's screen, hooks and exit reach
 * its record through the supervisor's probe cycle; a pull request the test states reaches the reactions at the next
 * PR poll; the slots a test gives its own Layer for are its own. Every assertion follows an `advance`, after which
 * everything the clock woke has run: the receipts are the record, the fakes' logs and the event log.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { existsSync } from "node:fs"
import { Agent, makeTestAgent } from "../../src/plugins/agent/Agent.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { TestOrch } from "../../src/testing/TestOrch.ts"

const config = { projects: { app: { repo: "acme/app", path: "/src/app" } } }

describe("TestOrch", () => {
  it.effect("a scripted agent: its hook makes it active, its exit ends the session as errored and notifies", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({
        config,
        script: () => [{ hook: "UserPromptSubmit" }, { after: "1 minute", show: "working on it" }, { after: "1 minute", exit: 2 }]
      })
      const record = yield* orch.spawn("app", "5")
      assert.deepStrictEqual([record.sessionId, record.status, record.branch], ["app-1", "working", "feat/5"])
      assert.deepStrictEqual(orch.tracker.issues.get("5")?.title, "Issue 5", "the tracker was given the issue")
      yield* orch.advance("10 seconds")
      assert.strictEqual((yield* orch.record("app-1")).activity, "active")
      assert.strictEqual(yield* orch.agentOf("app-1").screen, "")
      yield* orch.advance("70 seconds")
      assert.strictEqual(yield* orch.agentOf("app-1").screen, "working on it\n")
      yield* orch.advance("2 minutes")
      const ended = yield* orch.record("app-1")
      assert.deepStrictEqual([ended.status, ended.activity], ["errored", "exited"])
      const notified = (yield* orch.notifications).map((n) => [n.type, n.priority])
      assert.deepStrictEqual(notified, [["reaction.agent-exited", "urgent"]])
      assert.includeMembers((yield* orch.events).map((e) => e.type), ["session.spawned", "session.exited"])
    }))

  it.effect("an agent whose screen alone says it is active, from its spawn on, is stuck once the threshold has passed", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config, script: () => [{ show: "activity: active" }] })
      const { sessionId } = yield* orch.spawn("app", "4")
      yield* orch.advance("9 minutes")
      assert.strictEqual((yield* orch.record(sessionId)).status, "working")
      yield* orch.advance("2 minutes")
      assert.strictEqual((yield* orch.record(sessionId)).status, "stuck", "counted from the spawn: no report or hook ever said when it began")
      assert.includeMembers((yield* orch.notifications).map((n) => n.type), ["reaction.agent-stuck"])
    }))

  it.effect("a Layer registered under a name no project uses leaves every project on the fakes; a name orch does not know fails as outside a test", () =>
    Effect.gen(function*() {
      const unused = makeTestRuntime()
      const orch = yield* TestOrch.make({ config, register: { runtime: { child: Layer.succeed(Runtime, unused) } } })
      const { sessionId } = yield* orch.spawn("app", "6")
      assert.deepStrictEqual([...unused.terminals.keys()], [], "the registered runtime is for projects that name it")
      yield* orch.agentOf(sessionId).show("on the fake runtime")
      assert.strictEqual(yield* orch.agentOf(sessionId).screen, "on the fake runtime\n")

      const ghost = yield* Effect.flip(TestOrch.make({ config: { projects: { app: { ...config.projects.app, agent: "ghost-agent" } } } }))
      assert.include(ghost.message, `Unknown agent plugin "ghost-agent"`)
    }))

  it.effect("a pull request the test states: green and approved is told once; changes requested sends the review to the agent", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config })
      const { sessionId } = yield* orch.spawn("app", "3")
      yield* orch.setPullRequest(sessionId, { checks: "passing", review: "changes_requested", reviewComments: [{ author: "ana", body: "name it better" }] })
      yield* orch.advance("40 seconds")
      const record = yield* orch.record(sessionId)
      assert.deepStrictEqual([record.status, record.pr?.number, record.pr?.state], ["changes_requested", 1, "open"])
      const [told] = yield* orch.agentOf(sessionId).sent
      assert.include(told, "A reviewer requested changes")
      assert.include(told, "- ana: name it better")
      yield* orch.setPullRequest(sessionId, { checks: "passing", review: "approved", mergeable: true })
      yield* orch.advance("30 seconds")
      assert.strictEqual((yield* orch.record(sessionId)).status, "mergeable")
      assert.deepStrictEqual(orch.scm.merges, [], "approved-and-green only tells (auto: false)")
    }))

  it.effect("a slot the test gives its own Layer for is its own (an agent's program not looked for); its files go when the scope closes", () =>
    Effect.gen(function*() {
      // Its program is not installed: on the in-memory runtime none is looked for.
      const mine = { ...makeTestAgent(), name: "mine", commandLine: "mine-not-installed --fast" }
      const exit = yield* Effect.scoped(Effect.gen(function*() {
        const orch = yield* TestOrch.make({ config: { ...config, defaults: { agent: "mine" } }, register: { agent: { mine: Layer.succeed(Agent, mine) } } })
        yield* orch.spawn("app", "9")
        assert.deepStrictEqual(mine.launches.map((context) => context.issueId), ["9"])
        assert.deepStrictEqual(orch.agent.launches, [], "the fake agent was left out")
        assert.isTrue(existsSync(orch.dataDir))
        return orch.dataDir
      })).pipe(Effect.exit)
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) assert.isFalse(existsSync(exit.value))
    }))
})
