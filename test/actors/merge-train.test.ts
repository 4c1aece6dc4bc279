/**
 * The merge train as the supervisor runs it, in-process on the TestClock with the fakes (TestOrch): approved and
 * green PRs join; the head car is brought up to date, waits for its checks there and merges with its head pinned;
 * a car red on its updated head leaves and its agent hears of it through ci-failed; a conflict tells the agent to
 * rebase; auto-merge does not merge the project's PRs. The receipts are the train file, the event log and the fakes' logs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptyTrain, type PullFacts } from "../../src/domain/train.ts"
import { listTrains } from "../../src/store/TrainStore.ts"
import { TestOrch, type TestOrchShape } from "../../src/testing/TestOrch.ts"

const config = {
  projects: {
    app: { repo: "acme/app", path: "/src/app", mergeTrain: true, reactions: { "approved-and-green": { action: "auto-merge", auto: true } } }
  }
}
const MAIN = "m".repeat(40)

const behind = (n: number): PullFacts => ({
  state: "open",
  approved: true,
  head: `head-${n}`,
  base: MAIN,
  upToDate: false,
  checks: "passing",
  failingChecks: []
})

const trainOf = (orch: TestOrchShape) => Effect.map(listTrains(orch.dataDir), (trains) => trains.find((t) => t.projectId === "app") ?? emptyTrain("app"))

/** Spawns a session whose PR is approved, green and (to the train) behind main. */
const readyPull = Effect.fnUntraced(function*(orch: TestOrchShape, issue: string) {
  const { sessionId } = yield* orch.spawn("app", issue)
  yield* orch.setPullRequest(sessionId, { checks: "passing", review: "approved", mergeable: true })
  const number = (yield* orch.record(sessionId)).pr?.number ?? Number(issue)
  return { sessionId, number }
})

const eventsOf = (orch: TestOrchShape, prefix: string) =>
  Effect.map(orch.events, (events) => events.filter((e) => e.type.startsWith(prefix)).map((e) => [e.type, e.prNumber, e.data?.reason ?? null]))

describe("merge train (the supervisor's, on the fakes)", () => {
  it.effect("two PRs: each is brought up to date, checked there and merged with its head pinned, one after the other; auto-merge merges nothing itself", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config })
      const one = yield* readyPull(orch, "1")
      const two = yield* readyPull(orch, "2")
      orch.scm.pulls.set(1, behind(1))
      orch.scm.pulls.set(2, behind(2))
      yield* orch.advance("40 seconds")
      assert.deepStrictEqual(orch.scm.updates, [{ prNumber: 1, expectedHead: "head-1" }], "only the head car is updated")
      assert.deepStrictEqual(orch.scm.merges, [], "not merged before its checks ran on the updated head")
      const waiting = yield* trainOf(orch)
      assert.deepStrictEqual(waiting.cars.map((c) => [c.sessionId, c.step?.kind]), [[one.sessionId, "checking"], [two.sessionId, undefined]])

      // The updated head's checks pass; main has not moved: merged with that head pinned, and the next car goes.
      orch.scm.pulls.set(1, { ...orch.scm.pulls.get(1)!, checks: "passing" })
      yield* orch.advance("30 seconds")
      assert.deepStrictEqual(orch.scm.mergesAt, [{ prNumber: 1, head: `head-1+${MAIN.slice(0, 7)}` }])
      assert.deepStrictEqual(orch.scm.updates.map((u) => u.prNumber), [1, 2])
      orch.scm.pulls.set(2, { ...orch.scm.pulls.get(2)!, checks: "passing" })
      yield* orch.advance("30 seconds")
      assert.deepStrictEqual(orch.scm.mergesAt.map((m) => m.prNumber), [1, 2])
      assert.deepStrictEqual(orch.scm.merges.length, 2, "every merge is the train's, none auto-merge's")
      assert.deepStrictEqual((yield* trainOf(orch)).cars, [])
      assert.deepStrictEqual(yield* eventsOf(orch, "train."), [
        ["train.joined", 1, null],
        ["train.joined", 2, null],
        ["train.updated", 1, null],
        ["train.merged", 1, null],
        ["train.updated", 2, null],
        ["train.merged", 2, null]
      ])
      const autoMerge = (yield* orch.events).filter((e) => e.type === "reaction.triggered" && e.action === "auto-merge")
      assert.isTrue(autoMerge.length > 0 && autoMerge.every((e) => e.data?.mergeTrain === true))
    }))

  it.effect("red on its updated head: it leaves with the reason, the train goes on, and ci-failed tells its agent", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config })
      const one = yield* readyPull(orch, "1")
      yield* readyPull(orch, "2")
      orch.scm.pulls.set(1, behind(1))
      orch.scm.pulls.set(2, behind(2))
      yield* orch.advance("40 seconds")
      const failing = [{ name: "ci", summary: "x and y disagree" }]
      orch.scm.pulls.set(1, { ...orch.scm.pulls.get(1)!, checks: "failing", failingChecks: failing })
      yield* orch.setPullRequest(one.sessionId, { checks: "failing", review: "approved", mergeable: true, failingChecks: failing })
      yield* orch.advance("30 seconds")
      assert.deepStrictEqual(orch.scm.mergesAt, [])
      const left = (yield* orch.events).find((e) => e.type === "train.left")
      assert.strictEqual(left?.prNumber, 1)
      assert.strictEqual(left?.data?.reason, "its checks failed on head-1+, up to date with mmmmmmm (ci)")
      assert.deepStrictEqual(orch.scm.updates.map((u) => u.prNumber), [1, 2], "the train went on with the next car")
      const told = yield* orch.agentOf(one.sessionId).sent
      assert.isTrue(told.some((message) => message.includes("x and y disagree")), "the ci-failed reaction sent the failing check")

      // Its agent pushes a fix, green on main as it is: it joins again (with a new head, behind the second) and merges after it.
      orch.scm.pulls.set(1, { ...behind(1), head: "fixed-1", upToDate: true, checks: "passing" })
      yield* orch.setPullRequest(one.sessionId, { checks: "passing", review: "approved", mergeable: true })
      orch.scm.pulls.set(2, { ...orch.scm.pulls.get(2)!, checks: "passing" })
      yield* orch.advance("30 seconds")
      yield* orch.advance("30 seconds")
      assert.deepStrictEqual(orch.scm.mergesAt, [{ prNumber: 2, head: `head-2+${MAIN.slice(0, 7)}` }, { prNumber: 1, head: "fixed-1" }])
      assert.deepStrictEqual((yield* eventsOf(orch, "train.")).filter(([type]) => type !== "train.updated").map(([type, pr]) => `${type} #${pr}`), [
        "train.joined #1",
        "train.joined #2",
        "train.left #1",
        "train.joined #1",
        "train.merged #2",
        "train.merged #1"
      ])
    }))

  it.effect("a look that finds the head car's checks passed (a webhook's) moves the train at once, not a poll interval later", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config })
      const one = yield* readyPull(orch, "1")
      orch.scm.pulls.set(1, behind(1))
      yield* orch.advance("40 seconds")
      assert.strictEqual((yield* trainOf(orch)).cars[0]?.step?.kind, "checking")
      // Its checks run on the updated head: the PR poll sees them pending.
      yield* orch.setPullRequest(one.sessionId, { checks: "pending", review: "approved", mergeable: true })
      yield* orch.advance("30 seconds")
      assert.strictEqual((yield* orch.record(one.sessionId)).checks, "pending")
      // They pass; a webhook makes the supervisor look at the PR now. The train's round follows that look.
      orch.scm.pulls.set(1, { ...orch.scm.pulls.get(1)!, checks: "passing" })
      yield* orch.setPullRequest(one.sessionId, { checks: "passing", review: "approved", mergeable: true })
      yield* Effect.forkChild(orch.supervisor.branchChanged("acme/app", (yield* orch.record(one.sessionId)).branch), { startImmediately: true })
      yield* orch.advance("2 seconds")
      assert.deepStrictEqual(orch.scm.mergesAt.map((m) => m.prNumber), [1])
    }))

  it.effect("update-branch conflicts: the agent is told to rebase once (by merge-conflicts, or by the train when that reaction tells no agent), and the car waits for its new head", () =>
    Effect.gen(function*() {
      for (const tells of [true, false]) {
        const reactions = { ...config.projects.app.reactions, ...(tells ? {} : { "merge-conflicts": { auto: false } }) }
        const orch = yield* TestOrch.make({ config: { projects: { app: { ...config.projects.app, reactions } } } })
        const one = yield* readyPull(orch, "1")
        orch.scm.pulls.set(1, behind(1))
        orch.scm.updateAnswers.push({ _tag: "Conflict" })
        yield* orch.advance("40 seconds")
        // The repohost says the PR conflicts too, as GitHub does once update-branch could not merge.
        yield* orch.setPullRequest(one.sessionId, { checks: "passing", review: "approved", mergeable: false })
        yield* orch.advance("30 seconds")
        const sent = yield* orch.agentOf(one.sessionId).sent
        const byTrain = sent.filter((m) => m.includes("merge train could not bring PR #1 up to date"))
        const byReaction = sent.filter((m) => m.includes("Your branch has merge conflicts"))
        assert.deepStrictEqual([byTrain.length, byReaction.length], tells ? [0, 1] : [1, 0], "told once, by one of them")
        assert.deepStrictEqual((yield* trainOf(orch)).cars[0]?.step, { kind: "rebasing", from: "head-1", told: true })
        // The agent pushes a rebased head: the train checks it there.
        orch.scm.pulls.set(1, { ...behind(1), head: "rebased-1", upToDate: true, checks: "pending" })
        yield* orch.advance("30 seconds")
        assert.deepStrictEqual((yield* trainOf(orch)).cars[0]?.step, { kind: "checking", head: "rebased-1", base: MAIN })
      }
    }))

  it.effect("approved-and-green (notify) says a PR is ready once per readiness: not again after the train's update-branch, again after red then green", () =>
    Effect.gen(function*() {
      const notifyConfig = {
        projects: { app: { ...config.projects.app, reactions: { "approved-and-green": { action: "notify", priority: "action", auto: true } } } }
      }
      const orch = yield* TestOrch.make({ config: notifyConfig })
      const ready = Effect.map(orch.notifications, (all) => all.filter((n) => n.type === "reaction.approved-and-green").length)
      const triggered = Effect.map(orch.events, (all) => all.filter((e) => e.type === "reaction.triggered" && e.reaction === "approved-and-green").length)
      const one = yield* readyPull(orch, "1")
      orch.scm.pulls.set(1, behind(1))
      yield* orch.advance("40 seconds")
      assert.strictEqual(yield* ready, 1, "ready once")
      assert.deepStrictEqual(orch.scm.updates.map((u) => u.prNumber), [1], "the train updated its branch")
      // The updated head's checks run (the poll sees them pending), then pass: the same readiness, said once.
      yield* orch.setPullRequest(one.sessionId, { checks: "pending", review: "approved", mergeable: true })
      yield* orch.advance("30 seconds")
      assert.strictEqual((yield* orch.record(one.sessionId)).status, "approved")
      yield* orch.setPullRequest(one.sessionId, { checks: "passing", review: "approved", mergeable: true })
      yield* orch.advance("30 seconds")
      assert.strictEqual((yield* orch.record(one.sessionId)).status, "mergeable")
      assert.strictEqual(yield* ready, 1, "not again after update-branch")
      assert.strictEqual(yield* triggered, 1)

      // Red on its updated head: the readiness ended. Its agent's fix, green again, is a new readiness: said again.
      orch.scm.pulls.set(1, { ...orch.scm.pulls.get(1)!, checks: "failing", failingChecks: [{ name: "ci" }] })
      yield* orch.setPullRequest(one.sessionId, { checks: "failing", review: "approved", mergeable: true, failingChecks: [{ name: "ci" }] })
      yield* orch.advance("30 seconds")
      yield* orch.setPullRequest(one.sessionId, { checks: "passing", review: "approved", mergeable: true })
      yield* orch.advance("30 seconds")
      assert.strictEqual(yield* ready, 2, "green again after red")
    }))

  it.effect("a person's merge from the dashboard joins the train, or says why not", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config: { projects: { app: { ...config.projects.app, reactions: {} } } } })
      const one = yield* readyPull(orch, "1")
      const { sessionId: pending } = yield* orch.spawn("app", "2")
      yield* orch.setPullRequest(pending, { checks: "pending", review: "approved" })
      yield* orch.advance("40 seconds")
      const joined = yield* orch.supervisor.merge(one.sessionId)
      assert.deepStrictEqual(joined, { prNumber: 1, train: { position: 1 } })
      const refused = yield* Effect.flip(orch.supervisor.merge(pending))
      assert.strictEqual(
        refused.message,
        `${pending}: not merged: its checks are still running, and its project merges only through the merge train, which takes a PR once it is approved, green and free of conflicts`
      )
      // Approved and green, its branch conflicting with main: that is what is said, and nothing contradicts it.
      const { sessionId: conflicting } = yield* orch.spawn("app", "3")
      yield* orch.setPullRequest(conflicting, { checks: "passing", review: "approved", mergeable: false })
      yield* orch.advance("40 seconds")
      const conflict = yield* Effect.flip(orch.supervisor.merge(conflicting))
      assert.strictEqual(
        conflict.message,
        `${conflicting}: not merged: its branch conflicts with main (rebase it on main), and its project merges only through the merge train, which takes a PR once it is approved, green and free of conflicts`
      )
    }))
})
