/**
 * What the merge train asks of GitHub's REST API (docs/supervisor.md "Merge train"): a pull request's head and
 * whether it contains the default branch's head (`compare`), the checks of that exact head, branch updates
 * (`update-branch` with the head the train saw) and merges with the head sha pinned. All through the credential's
 * gateway (conditional GETs: an unchanged answer is a free 304).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { FailingCheck } from "../../domain/session.ts"
import type { MergeAnswer, PullFacts, UpdateAnswer } from "../../domain/train.ts"
import { expected } from "../answer.ts"
import type { Gateway } from "../repohost/gateway.ts"
import { checkSummary, logExcerpt } from "./pull-query.ts"
import type { MergeMethod, ScmError, ScmTrainShape } from "./Scm.ts"

const Pull = Schema.Struct({
  state: Schema.Literals(["open", "closed"]),
  merged: Schema.Boolean,
  draft: Schema.optionalKey(Schema.Boolean),
  head: Schema.Struct({ sha: Schema.String })
})
const Reviews = Schema.Array(Schema.Struct({ user: Schema.NullOr(Schema.Struct({ login: Schema.String })), state: Schema.String }))
const Compare = Schema.Struct({ behind_by: Schema.Int, base_commit: Schema.Struct({ sha: Schema.String }) })
const CheckRuns = Schema.Struct({
  check_runs: Schema.Array(Schema.Struct({
    name: Schema.String,
    status: Schema.String,
    conclusion: Schema.NullOr(Schema.String),
    html_url: Schema.optionalKey(Schema.NullOr(Schema.String)),
    output: Schema.optionalKey(Schema.Struct({
      title: Schema.optionalKey(Schema.NullOr(Schema.String)),
      summary: Schema.optionalKey(Schema.NullOr(Schema.String)),
      text: Schema.optionalKey(Schema.NullOr(Schema.String))
    }))
  }))
})
const CombinedStatus = Schema.Struct({
  statuses: Schema.Array(Schema.Struct({ context: Schema.String, state: Schema.String, target_url: Schema.optionalKey(Schema.NullOr(Schema.String)) }))
})
const Accepted = Schema.Unknown
const Merged = Schema.Struct({ merged: Schema.Boolean, sha: Schema.optionalKey(Schema.String) })

const FAILED = ["failure", "timed_out", "cancelled", "action_required", "startup_failure", "error"]

/** The checks of one commit: its check runs and its commit statuses (an empty list is no checks, not pending). */
export const commitChecks = (runs: typeof CheckRuns.Type, status: typeof CombinedStatus.Type): Pick<PullFacts, "checks" | "failingChecks"> => {
  const failingChecks: Array<FailingCheck> = []
  let pending = false
  for (const run of runs.check_runs) {
    if (run.status !== "completed") pending = true
    else if (FAILED.includes(run.conclusion ?? "")) {
      const summary = checkSummary(run.output?.title, run.output?.summary)
      const log = logExcerpt(run.output?.text)
      failingChecks.push({ name: run.name, ...(run.html_url ? { url: run.html_url } : {}), ...(summary ? { summary } : {}), ...(log ? { log } : {}) })
    }
  }
  for (const s of status.statuses) {
    if (s.state === "pending") pending = true
    else if (FAILED.includes(s.state)) failingChecks.push({ name: s.context, ...(s.target_url ? { url: s.target_url } : {}) })
  }
  const checks = runs.check_runs.length + status.statuses.length === 0 ? "none" : failingChecks.length > 0 ? "failing" : pending ? "pending" : "passing"
  return { checks, failingChecks }
}

/** Each reviewer's latest decisive review: approved when one approves and none asks for changes. */
export const approvedBy = (reviews: typeof Reviews.Type): boolean => {
  const latest = new Map<string, string>()
  for (const review of reviews) {
    if (review.state === "APPROVED" || review.state === "CHANGES_REQUESTED" || review.state === "DISMISSED") latest.set(review.user?.login ?? "", review.state)
  }
  const states = [...latest.values()]
  return states.includes("APPROVED") && !states.includes("CHANGES_REQUESTED")
}

/** update-branch's refusals, by GitHub's messages. */
export const updateAnswerOf = (error: ScmError): UpdateAnswer => {
  if (error.status === 422 && /no new commits/i.test(error.reason)) return { _tag: "AlreadyUpToDate" }
  if (error.status === 422 && /conflict/i.test(error.reason)) return { _tag: "Conflict" }
  if (error.status === 422 && /expected head sha/i.test(error.reason)) return { _tag: "HeadMoved" }
  return { _tag: "Unknown", reason: error.message }
}

/** A merge refused in words (4xx) merged nothing; anything else may have merged. */
export const mergeAnswerOf = (error: ScmError): MergeAnswer =>
  error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429
    ? { _tag: "Refused", reason: error.message }
    : { _tag: "Unknown", reason: error.message }

export const makeTrainRequests = (gateway: Gateway, repo: string): ScmTrainShape => {
  const look = Effect.fn("Scm.repohost.train.look")(function*(prNumber: number, defaultBranch: string) {
    const pull = yield* gateway.get(`/repos/${repo}/pulls/${prNumber}`, expected(Pull, "a pull request"))
    const head = pull.head.sha
    const [reviews, compare, runs, status] = yield* Effect.all([
      gateway.get(`/repos/${repo}/pulls/${prNumber}/reviews?per_page=100`, expected(Reviews, "the reviews of a pull request")),
      gateway.get(`/repos/${repo}/compare/${encodeURIComponent(defaultBranch)}...${head}`, expected(Compare, "a comparison of two commits")),
      gateway.get(`/repos/${repo}/commits/${head}/check-runs?per_page=100`, expected(CheckRuns, "the check runs of a commit")),
      gateway.get(`/repos/${repo}/commits/${head}/status?per_page=100`, expected(CombinedStatus, "the statuses of a commit"))
    ], { concurrency: 4 })
    return {
      state: pull.merged ? "merged" : pull.state === "closed" ? "closed" : pull.draft === true ? "draft" : "open",
      approved: approvedBy(reviews),
      head,
      base: compare.base_commit.sha,
      upToDate: compare.behind_by === 0,
      ...commitChecks(runs, status)
    } satisfies PullFacts
  })
  return {
    look,
    updateBranch: (prNumber, expectedHead) =>
      gateway.send("PUT", `/repos/${repo}/pulls/${prNumber}/update-branch`, { expected_head_sha: expectedHead }, expected(Accepted, "a branch update")).pipe(
        Effect.as<UpdateAnswer>({ _tag: "Updated" }),
        Effect.catch((error) => Effect.succeed(updateAnswerOf(error)))
      ),
    mergeAt: (prNumber: number, method: MergeMethod, head: string) =>
      gateway.send("PUT", `/repos/${repo}/pulls/${prNumber}/merge`, { merge_method: method, sha: head }, expected(Merged, "a merge")).pipe(
        Effect.map((answer): MergeAnswer =>
          answer.merged
            ? { _tag: "Merged", ...(answer.sha !== undefined ? { sha: answer.sha } : {}) }
            : { _tag: "Refused", reason: "the repohost did not merge it" }
        ),
        Effect.catch((error) => Effect.succeed(mergeAnswerOf(error)))
      )
  }
}
