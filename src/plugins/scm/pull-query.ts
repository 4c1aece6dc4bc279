/**
 * The one GraphQL query that observes the pull requests of many branches at once (one alias per branch), and
 * the pure reading of its answer into what the lifecycle needs: state, CI (check runs and commit statuses,
 * failing ones with links and a log excerpt), review decision, unresolved review threads (human and bot),
 * mergeability. Checked against GitHub's published schema in the tests.
 */
import type { FailingCheck, ReviewComment } from "../../domain/session.ts"
import type { PullRequestView } from "./Scm.ts"

const PULL_FIELDS = /* GraphQL */ `
fragment OrchPull on PullRequest {
  number
  url
  state
  isDraft
  mergeable
  reviewDecision
  commits(last: 1) {
    nodes {
      commit {
        statusCheckRollup {
          state
          contexts(first: 50) {
            nodes {
              __typename
              ... on CheckRun { name status conclusion detailsUrl permalink title summary text }
              ... on StatusContext { context state targetUrl description }
            }
          }
        }
      }
    }
  }
  latestOpinionatedReviews(first: 20) { nodes { state body url author { __typename login } } }
  reviewThreads(first: 50) {
    nodes {
      isResolved
      isOutdated
      path
      line
      comments(first: 10) { nodes { body url author { __typename login } } }
    }
  }
}`

/** Branches per query: keeps each query's node count and cost small. */
export const BRANCHES_PER_QUERY = 25

/** The query for `branches` of `owner/name`; branch names travel as variables, never spliced into the text. */
export const pullRequestsQuery = (branches: ReadonlyArray<string>) => {
  const aliases = branches.map((_, i) => `  b${i}: pullRequests(headRefName: $b${i}, first: 1, orderBy: {field: CREATED_AT, direction: DESC}) { nodes { ...OrchPull } }`)
  const query = [
    `query OrchPullRequests($owner: String!, $name: String!${branches.map((_, i) => `, $b${i}: String!`).join("")}) {`,
    "  rateLimit { limit remaining resetAt cost }",
    "  repository(owner: $owner, name: $name) {",
    ...aliases.map((line) => `  ${line}`),
    "  }",
    "}",
    PULL_FIELDS
  ].join("\n")
  return { query, variables: (owner: string, name: string) => ({ owner, name, ...Object.fromEntries(branches.map((branch, i) => [`b${i}`, branch])) }) }
}

interface Author {
  readonly __typename?: string
  readonly login?: string
}
interface Context {
  readonly __typename: "CheckRun" | "StatusContext"
  readonly name?: string
  readonly status?: string
  readonly conclusion?: string | null
  readonly detailsUrl?: string | null
  readonly permalink?: string
  readonly title?: string | null
  readonly summary?: string | null
  readonly text?: string | null
  readonly context?: string
  readonly state?: string
  readonly targetUrl?: string | null
  readonly description?: string | null
}
export interface PullNode {
  readonly number: number
  readonly url: string
  readonly state: "OPEN" | "CLOSED" | "MERGED"
  readonly isDraft: boolean
  readonly mergeable: "MERGEABLE" | "CONFLICTING" | "UNKNOWN"
  readonly reviewDecision: "APPROVED" | "CHANGES_REQUESTED" | "REVIEW_REQUIRED" | null
  readonly commits: { readonly nodes: ReadonlyArray<{ readonly commit: { readonly statusCheckRollup: { readonly contexts: { readonly nodes: ReadonlyArray<Context> } } | null } }> }
  readonly latestOpinionatedReviews: { readonly nodes: ReadonlyArray<{ readonly state: string; readonly body: string; readonly url: string; readonly author: Author | null }> } | null
  readonly reviewThreads: {
    readonly nodes: ReadonlyArray<{
      readonly isResolved: boolean
      readonly isOutdated: boolean
      readonly path: string
      readonly line: number | null
      readonly comments: { readonly nodes: ReadonlyArray<{ readonly body: string; readonly url: string; readonly author: Author | null }> }
    }>
  }
}

export const NO_PULL_REQUEST: PullRequestView = { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] }

const FAILED_CONCLUSIONS = ["FAILURE", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"]
const EXCERPT_LINES = 20
const EXCERPT_CHARS = 1500

/** The end of a check's log, where the failure usually is. */
export const logExcerpt = (text: string | null | undefined): string | undefined => {
  const trimmed = (text ?? "").trim()
  if (trimmed === "") return undefined
  const tail = trimmed.split("\n").slice(-EXCERPT_LINES).join("\n")
  return tail.length > EXCERPT_CHARS ? `…${tail.slice(-EXCERPT_CHARS)}` : tail
}

export const readChecks = (contexts: ReadonlyArray<Context>): Pick<PullRequestView, "checks" | "failingChecks"> => {
  const failingChecks: Array<FailingCheck> = []
  let pending = false
  for (const c of contexts) {
    if (c.__typename === "CheckRun") {
      if (c.status !== "COMPLETED") pending = true
      else if (FAILED_CONCLUSIONS.includes(c.conclusion ?? "")) {
        const url = c.detailsUrl ?? c.permalink
        const summary = [c.title, c.summary].filter(Boolean).join(": ")
        const log = logExcerpt(c.text)
        failingChecks.push({ name: c.name ?? "check", ...(url ? { url } : {}), ...(summary ? { summary } : {}), ...(log ? { log } : {}) })
      }
    } else if (c.state === "PENDING" || c.state === "EXPECTED") pending = true
    else if (c.state === "FAILURE" || c.state === "ERROR") {
      failingChecks.push({ name: c.context ?? "status", ...(c.targetUrl ? { url: c.targetUrl } : {}), ...(c.description ? { summary: c.description } : {}) })
    }
  }
  if (contexts.length === 0) return { checks: null, failingChecks }
  return { checks: failingChecks.length > 0 ? "failing" : pending ? "pending" : "passing", failingChecks }
}

/**
 * The review decision: GitHub's own where branch protection makes one, else the latest decisive review of
 * each reviewer (any change request wins over approvals).
 */
export const readReview = (node: PullNode): PullRequestView["review"] => {
  if (node.reviewDecision === "APPROVED") return "approved"
  if (node.reviewDecision === "CHANGES_REQUESTED") return "changes_requested"
  const states = (node.latestOpinionatedReviews?.nodes ?? []).map((r) => r.state)
  if (states.includes("CHANGES_REQUESTED")) return "changes_requested"
  if (states.includes("APPROVED")) return "approved"
  return node.reviewDecision === "REVIEW_REQUIRED" || states.length > 0 ? "pending" : null
}

/** What is left to address: the text of change requests, then every unresolved, current review thread. */
export const readReviewComments = (node: PullNode): Array<ReviewComment> => {
  const author = (a: Author | null) => ({ author: a?.login ?? "reviewer", ...(a?.__typename === "Bot" ? { bot: true } : {}) })
  return [
    ...(node.latestOpinionatedReviews?.nodes ?? [])
      .filter((r) => r.state === "CHANGES_REQUESTED" && r.body.trim() !== "")
      .map((r) => ({ ...author(r.author), body: r.body.trim(), url: r.url })),
    ...node.reviewThreads.nodes
      .filter((t) => !t.isResolved && !t.isOutdated)
      .flatMap((t) =>
        t.comments.nodes.map((c) => ({ ...author(c.author), body: c.body.trim(), path: t.path, ...(t.line !== null ? { line: t.line } : {}), url: c.url }))
      )
  ]
}

export const readPull = (node: PullNode | undefined): PullRequestView => {
  if (node === undefined) return NO_PULL_REQUEST
  const contexts = node.commits.nodes[0]?.commit.statusCheckRollup?.contexts.nodes ?? []
  return {
    pr: {
      number: node.number,
      url: node.url,
      state: node.state === "MERGED" ? "merged" : node.state === "CLOSED" ? "closed" : node.isDraft ? "draft" : "open"
    },
    ...readChecks(contexts),
    review: readReview(node),
    mergeable: node.mergeable === "MERGEABLE" ? true : node.mergeable === "CONFLICTING" ? false : null,
    reviewComments: readReviewComments(node)
  }
}
