/**
 * A person asked to merge a session's PR (the dashboard): a command to the session's actor, merged only as
 * auto-merge would (checks green, approved, not a draft, no conflicts), then looked at again at once, so the session
 * shows it merged now rather than at the next poll. In a project with a merge train the PR joins the train instead
 * (if it is approved and green; else it is refused, saying why): the train is the only way in to its default branch.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mergeMethodOf } from "../src/plugins/scm/Scm.ts"
import { MergeRefused } from "../src/sessions/errors.ts"
import type { SessionNotFound, StoreError } from "../src/store/errors.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { MergeTrain } from "./merge-train.ts"
import { checkThenMerge } from "./reaction-effects.ts"
import { SessionActors } from "./session-actors.ts"
import { WatchedProjects } from "./watched-projects.ts"
import { WebhookLooks } from "./webhook-looks.ts"

export interface PullRequestMergeShape {
  /** Merged, or (in a project with a merge train) joined the train at `train.position`. */
  readonly merge: (
    sessionId: string
  ) => Effect.Effect<{ readonly prNumber: number; readonly train?: { readonly position: number } }, MergeRefused | SessionNotFound | StoreError>
}

export class PullRequestMerge extends Context.Service<PullRequestMerge, PullRequestMergeShape>()("orch/actors/PullRequestMerge") {
  static readonly layer = Layer.effect(
    PullRequestMerge,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const actors = yield* SessionActors
      const projects = yield* WatchedProjects
      const looks = yield* WebhookLooks
      const train = yield* MergeTrain

      const mergeNow = Effect.fnUntraced(function*(sessionId: string) {
        const record = yield* store.read(sessionId)
        const owner = projects.get(record.projectId)
        const scm = owner?.scm
        if (scm === undefined || record.pr === null) return yield* new MergeRefused({ sessionId, reason: "it has no pull request orch can merge" })
        const blocker = yield* checkThenMerge(scm, record, mergeMethodOf(owner?.project.scm))
        if (blocker !== undefined) return yield* new MergeRefused({ sessionId, reason: blocker })
        return { prNumber: record.pr.number, branch: record.branch, scm }
      })

      const joinTrain = Effect.fnUntraced(function*(sessionId: string) {
        const record = yield* store.read(sessionId)
        if (record.pr === null) return yield* new MergeRefused({ sessionId, reason: "it has no pull request" })
        const answer = yield* train.join(record).pipe(
          Effect.catchTag("LockTimeout", (error) => Effect.fail(new MergeRefused({ sessionId, reason: error.message })))
        )
        if (answer._tag === "NotReady") {
          return yield* new MergeRefused({
            sessionId,
            reason: `${answer.reason}, and its project merges only through the merge train, which takes a PR once it is approved, green and free of conflicts`
          })
        }
        return { prNumber: record.pr.number, train: { position: answer.position } }
      })

      const merge = Effect.fn("PullRequestMerge.merge")(function*(sessionId: string) {
        const record = yield* store.read(sessionId)
        if (projects.get(record.projectId)?.project.mergeTrain === true) return yield* joinTrain(sessionId)
        const { prNumber, branch, scm } = yield* actors.command(sessionId, mergeNow(sessionId))
        yield* looks.lookNow(sessionId, branch, scm)
        return { prNumber }
      })

      return PullRequestMerge.of({ merge })
    })
  )
}
