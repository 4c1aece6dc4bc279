/**
 * Cleanup ends a session on its record as it is when the ending is written, not as cleanup listed it: the
 * supervisor's actor may write the record while cleanup stops the terminal and removes the worktree (here its PR
 * merged meanwhile, as a merge train's merge and the issue closing by it arrive together). On TestOrch's fakes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { TestOrch } from "../../src/testing/TestOrch.ts"

describe("cleanup while the record changes", () => {
  it.effect("a PR that merged while cleanup removed the worktree ends the session as merged, its PR merged", () =>
    Effect.gen(function*() {
      const orch = yield* TestOrch.make({ config: { projects: { app: { repo: "acme/app", path: "/src/app" } } } })
      const { sessionId } = yield* orch.spawn("app", "4")
      yield* orch.setPullRequest(sessionId, { number: 14, checks: "passing", review: "approved" })
      yield* orch.advance("40 seconds")
      assert.strictEqual((yield* orch.record(sessionId)).pr?.state, "open")
      // The issue is closed (completed); while cleanup removes the worktree, the actor records the PR merged.
      orch.tracker.issues.set("4", { ...orch.tracker.issues.get("4")!, state: { name: "closed", completed: true } })
      const store = SessionStore.make(orch.dataDir)
      const destroy = orch.workspace.destroy
      Object.assign(orch.workspace, {
        destroy: (...args: Parameters<typeof destroy>) =>
          Effect.andThen(
            Effect.flatMap(store.read(sessionId), (record) => store.write({ ...record, pr: { ...record.pr!, state: "merged" } })),
            destroy(...args)
          ).pipe(Effect.orDie)
      })
      yield* orch.sessions.cleanup({ dryRun: false })
      const ended = yield* orch.record(sessionId)
      assert.deepStrictEqual([ended.status, ended.pr?.state], ["merged", "merged"])
      const cleaned = (yield* orch.events).find((e) => e.type === "session.cleaned")
      assert.strictEqual(cleaned?.message, "PR #14 merged")
    }))
})
