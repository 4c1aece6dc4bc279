/** A session's pull request as a test states it: only what matters to the test, the rest as a fresh open PR has it. */
import type { CheckState, FailingCheck, PullRequest, ReviewComment, ReviewState } from "../domain/session.ts"
import type { PullRequestView } from "../plugins/scm/Scm.ts"

export interface PullRequestState {
  /** Default: the number it had, else the next one the test scm has not given. */
  readonly number?: number
  /** Default: open. */
  readonly state?: PullRequest["state"]
  /** Default: null (no checks yet). */
  readonly checks?: CheckState | null
  /** Default: null (no review yet). */
  readonly review?: ReviewState | null
  /** Default: null (not known yet). */
  readonly mergeable?: boolean | null
  readonly failingChecks?: ReadonlyArray<FailingCheck>
  readonly reviewComments?: ReadonlyArray<ReviewComment>
}

/** The view an scm answers for `state`, on `repo`, numbered `number`. */
export const pullRequestView = (repo: string, number: number, state: PullRequestState): PullRequestView => ({
  pr: { number, url: `https://repohost.test/${repo}/pull/${number}`, state: state.state ?? "open" },
  checks: state.checks ?? null,
  review: state.review ?? null,
  mergeable: state.mergeable ?? null,
  failingChecks: state.failingChecks ?? [],
  reviewComments: state.reviewComments ?? []
})
