/**
 * Scm `repohost`: a branch's pull request, its checks and reviews through GitHub's REST API (`apiUrl`, token as
 * for the tracker), through an ETag gateway so unchanged answers cost nothing; and merging it.
 */
import * as Effect from "effect/Effect"
import type { ScmConfig } from "../../config/schema.ts"
import type { FailingCheck, PullRequest, ReviewComment } from "../../domain/session.ts"
import { repohostHeaders, repohostToken } from "../tracker/repohost.ts"
import { makeGateway } from "./gateway.ts"
import type { PullRequestView, ScmShape } from "./Scm.ts"

interface GitHubPull {
  readonly number: number
  readonly state: "open" | "closed"
  readonly draft?: boolean
  readonly merged?: boolean
  readonly merged_at?: string | null
  readonly mergeable?: boolean | null
  readonly html_url: string
  readonly head: { readonly sha: string }
}
interface CheckRun {
  readonly name: string
  readonly status: string
  readonly conclusion: string | null
  readonly html_url?: string
  readonly details_url?: string
  readonly output?: { readonly title?: string | null; readonly summary?: string | null }
}
interface GitHubReview {
  readonly user: { readonly login: string } | null
  readonly state: string
  readonly body?: string | null
  readonly html_url?: string
}
interface GitHubReviewComment {
  readonly user: { readonly login: string } | null
  readonly body: string
  readonly path?: string
  readonly line?: number | null
  readonly html_url?: string
}

const FAILED = ["failure", "timed_out", "cancelled", "action_required", "startup_failure"]

/** Checks: failing if any failed, passing when all completed fine, pending otherwise (or null when there are none). */
export const summarizeChecks = (runs: ReadonlyArray<CheckRun>): Pick<PullRequestView, "checks" | "failingChecks"> => {
  const failing = runs.filter((run) => run.status === "completed" && FAILED.includes(run.conclusion ?? ""))
  const failingChecks: Array<FailingCheck> = failing.map((run) => ({
    name: run.name,
    ...(run.html_url ?? run.details_url ? { url: (run.html_url ?? run.details_url)! } : {}),
    ...(run.output?.title || run.output?.summary ? { summary: [run.output.title, run.output.summary].filter(Boolean).join(": ") } : {})
  }))
  if (runs.length === 0) return { checks: null, failingChecks }
  if (failing.length > 0) return { checks: "failing", failingChecks }
  return { checks: runs.every((run) => run.status === "completed") ? "passing" : "pending", failingChecks }
}

/** Reviews: the latest decisive review of each reviewer; any change request wins over approvals. */
export const summarizeReviews = (reviews: ReadonlyArray<GitHubReview>): PullRequestView["review"] => {
  const latest = new Map<string, string>()
  for (const review of reviews) {
    if (review.state === "APPROVED" || review.state === "CHANGES_REQUESTED" || review.state === "DISMISSED") latest.set(review.user?.login ?? "?", review.state)
  }
  const states = [...latest.values()]
  if (states.includes("CHANGES_REQUESTED")) return "changes_requested"
  if (states.includes("APPROVED")) return "approved"
  return reviews.length > 0 ? "pending" : null
}

/** What the reviewers asked: the text of change requests, then the line comments. */
export const reviewComments = (reviews: ReadonlyArray<GitHubReview>, comments: ReadonlyArray<GitHubReviewComment>): Array<ReviewComment> => [
  ...reviews.filter((r) => r.state === "CHANGES_REQUESTED" && (r.body ?? "").trim() !== "").map((r) => ({
    author: r.user?.login ?? "reviewer",
    body: r.body!.trim(),
    ...(r.html_url ? { url: r.html_url } : {})
  })),
  ...comments.map((c) => ({
    author: c.user?.login ?? "reviewer",
    body: c.body.trim(),
    ...(c.path ? { path: c.path } : {}),
    ...(typeof c.line === "number" ? { line: c.line } : {}),
    ...(c.html_url ? { url: c.html_url } : {})
  }))
]

const prState = (pull: GitHubPull): PullRequest["state"] =>
  pull.merged === true || (pull.merged_at ?? null) !== null ? "merged" : pull.state === "closed" ? "closed" : pull.draft ? "draft" : "open"

export const makeRepohostScm = (repo: string, config: ScmConfig, env: Readonly<Record<string, string | undefined>>): ScmShape => {
  const apiUrl = (typeof config.apiUrl === "string" ? config.apiUrl : "https://api.github.com").replace(/\/+$/, "")
  const gateway = makeGateway("repohost", apiUrl, repohostHeaders(repohostToken(config, env)))
  const owner = repo.split("/")[0]!

  const observe = Effect.fn("Scm.repohost.observe")(function*(branch: string) {
    const pulls = yield* gateway.get<ReadonlyArray<GitHubPull>>(`/repos/${repo}/pulls?head=${encodeURIComponent(`${owner}:${branch}`)}&state=all`)
    const newest = [...pulls].sort((a, b) => b.number - a.number)[0]
    if (newest === undefined) return { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] } satisfies PullRequestView
    const pull = yield* gateway.get<GitHubPull>(`/repos/${repo}/pulls/${newest.number}`)
    const [runs, reviews] = yield* Effect.all([
      gateway.get<{ readonly check_runs: ReadonlyArray<CheckRun> }>(`/repos/${repo}/commits/${pull.head.sha}/check-runs`),
      gateway.get<ReadonlyArray<GitHubReview>>(`/repos/${repo}/pulls/${pull.number}/reviews`)
    ], { concurrency: 2 })
    const review = summarizeReviews(reviews)
    const comments = review === "changes_requested"
      ? yield* gateway.get<ReadonlyArray<GitHubReviewComment>>(`/repos/${repo}/pulls/${pull.number}/comments`)
      : []
    return {
      pr: { number: pull.number, url: pull.html_url, state: prState(pull) },
      ...summarizeChecks(runs.check_runs),
      review,
      mergeable: pull.mergeable ?? null,
      reviewComments: review === "changes_requested" ? reviewComments(reviews, comments) : []
    } satisfies PullRequestView
  })

  return {
    name: "repohost",
    observe,
    merge: (prNumber, method) => Effect.asVoid(gateway.send("PUT", `/repos/${repo}/pulls/${prNumber}/merge`, { merge_method: method })),
    budget: gateway.budget
  }
}
