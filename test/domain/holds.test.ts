/** Holds (src/domain/holds.ts) over explicit time, and whose failure a failed spawn is (src/sessions/failure-owner.ts). */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { activeHolds, heldHosts, holdAfterFailure, holdDelay, liftHold, projectHold } from "../../src/domain/holds.ts"
import { InvalidIssueId, IssueNotFound, TrackerAuthFailed } from "../../src/plugins/tracker/Tracker.ts"
import { IssueClosed, IssueHasSession, NoHostFits, SpawnFailed } from "../../src/sessions/errors.ts"
import { failureOwner } from "../../src/sessions/failure-owner.ts"
import { liftHolds, recordHold } from "../../src/sessions/queueing.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { readHolds } from "../../src/store/holds-file.ts"
import { tempDir } from "../support/host.ts"

const T0 = Date.parse("2026-11-27T12:00:00Z")
const MIN = 60_000
const at = (ms: number) => `at ${new Date(ms).toISOString().slice(11, 16)}`

describe("holds", () => {
  it.each([[1, 1], [2, 2], [3, 4], [5, 16], [6, 30], [20, 30]])(
    "the retry after failure %i comes %i minutes later",
    (failures, minutes) => assert.strictEqual(holdDelay(failures), minutes * MIN)
  )

  it("a failure holds the host back for the project; failing again once its retry came puts the next retry off further", () => {
    const first = holdAfterFailure([], { project: "app", host: "b" }, "cannot read origin", T0)
    assert.isTrue(first.fresh)
    assert.deepStrictEqual(first.hold, {
      project: "app",
      host: "b",
      reason: "cannot read origin",
      since: "2026-11-27T12:00:00.000Z",
      failures: 1,
      retryAt: "2026-11-27T12:01:00.000Z"
    })
    // Spawns that were on their way together fail too: the hold stays as it is (not 2, 4, 8 minutes for one outage).
    const together = holdAfterFailure(first.holds, { project: "app", host: "b" }, "cannot read origin (again)", T0 + 1000)
    assert.deepStrictEqual([together.fresh, together.hold.failures, together.hold.retryAt, together.hold.reason], [
      false,
      1,
      "2026-11-27T12:01:00.000Z",
      "cannot read origin (again)"
    ])
    const retried = holdAfterFailure(together.holds, { project: "app", host: "b" }, "cannot read origin", T0 + MIN)
    assert.deepStrictEqual([retried.fresh, retried.hold.failures, retried.hold.since, retried.hold.retryAt], [
      false,
      2,
      "2026-11-27T12:00:00.000Z",
      "2026-11-27T12:03:00.000Z"
    ])
    assert.deepStrictEqual(liftHold(retried.holds, { project: "app", host: "b" }), [])
  })

  it("in force until its retry time: the host is left out for that project only, the project's own hold is apart", () => {
    const held = holdAfterFailure(holdAfterFailure([], { project: "app", host: "b" }, "no origin", T0).holds, { project: "web" }, "key refused", T0).holds
    assert.deepStrictEqual([...heldHosts(held, "app", T0 + 1000, at)], [["b", "a spawn there failed (no origin; orch tries again at 12:01)"]])
    assert.deepStrictEqual([...heldHosts(held, "web", T0 + 1000, at)], [])
    assert.strictEqual(projectHold(held, "web", T0 + 1000)?.reason, "key refused")
    assert.strictEqual(projectHold(held, "app", T0 + 1000), undefined)
    assert.deepStrictEqual(activeHolds(held, T0 + MIN), [])
  })

  it.effect("recorded under their lock with queue.held once, and lifted by a spawn that succeeds there with queue.resumed", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const events = yield* EventLog.make(join(root, "events.jsonl"))
      yield* recordHold(root, events, { project: "app", host: "b" }, "cannot read origin")
      yield* recordHold(root, events, { project: "app", host: "b" }, "cannot read origin")
      yield* recordHold(root, events, { project: "app" }, "the tracker refused the key")
      assert.deepStrictEqual((yield* readHolds(root)).map((hold) => hold.host ?? "project"), ["b", "project"])
      yield* liftHolds(root, events, "app", "local", "a spawn there succeeded")
      assert.deepStrictEqual((yield* readHolds(root)).map((hold) => hold.host ?? "project"), ["b"])
      yield* liftHolds(root, events, "app", "b", "a spawn there succeeded")
      assert.deepStrictEqual(yield* readHolds(root), [])
      const types = readFileSync(events.path, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { type: string }).type)
      assert.deepStrictEqual(types, ["queue.held", "queue.held", "queue.resumed", "queue.resumed"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})

describe("whose failure a failed spawn is", () => {
  const failed = (step: string, host?: string) =>
    new SpawnFailed({ project: "app", issueId: "7", step, reason: "why", ...(host !== undefined ? { host } : {}) })
  it.each([
    ["an id that is no issue id", new InvalidIssueId({ issueId: "a b", expected: "…" }), "Entry"],
    ["an issue the tracker does not have", new IssueNotFound({ issueId: "7", where: "acme/app" }), "Entry"],
    ["an issue the tracker says is closed", new IssueClosed({ issueId: "7", state: "closed (completed)" }), "Entry"],
    ["an issue another live session works", new IssueHasSession({ issueId: "7", sessionId: "app-2" }), "Entry"],
    ["an issue another spawn is starting right now", new IssueHasSession({ issueId: "7", sessionId: "app-2", spawning: true }), "Wait"],
    ["a task whose every branch name is taken", failed("choosing a branch"), "Entry"],
    [
      "its branch is checked out elsewhere",
      new SpawnFailed({ project: "app", issueId: "7", step: "creating the workspace", reason: "branch feat/7 is already checked out", branchUnusable: true }),
      "Entry"
    ],
    ["no host can take it now", new NoHostFits({ reason: "a: down" }), "Wait"],
    ["host b cannot clone origin", failed("creating the workspace", "b"), "Host b"],
    ["this machine's postCreate failed", failed("creating the workspace"), "Host local"],
    ["the agent died as it started here", failed("starting the agent"), "Host local"],
    ["the project's tracker refused its key", new TrackerAuthFailed({ tracker: "repohost", key: "token", reason: "401" }), "Project"]
  ])("%s: %s", (_name, error, expected) => {
    const owner = failureOwner(error)
    assert.strictEqual(owner._tag === "Host" ? `Host ${owner.host}` : owner._tag, expected)
  })
})
