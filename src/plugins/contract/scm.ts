/** The scm slot as a plugin module's component sees it: a branch's pull request, its checks and reviews, merging. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CheckState, FailingCheck, PullRequest, ReviewComment, ReviewState } from "../../domain/session.ts"
import type { MergeMethod } from "../scm/Scm.ts"
import type { Returned } from "./common.ts"

export type { MergeMethod }

const orNull = <S extends Schema.Top>(schema: S) => Schema.NullOr(schema).pipe(Schema.withDecodingDefaultKey(Effect.succeed(null)))
const orNone = <S extends Schema.Top>(schema: S) => Schema.Array(schema).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))

/** What `observe` returns; every key may be left out (no pull request, nothing known). */
export const PullRequestViewFromPlugin = Schema.Struct({
  pr: orNull(PullRequest),
  checks: orNull(CheckState),
  review: orNull(ReviewState),
  mergeable: orNull(Schema.Boolean),
  failingChecks: orNone(FailingCheck),
  reviewComments: orNone(ReviewComment)
})
export type PullRequestViewFromPlugin = typeof PullRequestViewFromPlugin.Encoded

export interface ScmComponent {
  readonly name?: string
  /** The newest pull request whose head is `branch`, with its checks and reviews. */
  observe(branch: string): Returned<PullRequestViewFromPlugin>
  merge(prNumber: number, method: MergeMethod): Returned<unknown>
}
