/**
 * The one GraphQL query that observes the pull requests of many branches at once (one alias per branch), and
 * the pure reading of its answer into what the lifecycle needs: state, CI (check runs and commit statuses,
 * failing ones with links and a log excerpt), review decision, unresolved review threads (human and bot),
 * mergeability. Checked against GitHub's published schema in the tests; the answer is read with the Schemas here.
 */
import * as Schema from "effect/Schema"
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
  const aliases = branches.map((_, i) =>
    `  b${i}: pullRequests(headRefName: $b${i}, first: 1, orderBy: {field: CREATED_AT, direction: DESC}) { nodes { ...OrchPull } }`
  )
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

const Author = Schema.NullOr(Schema.Struct({ __typename: Schema.optionalKey(Schema.String), login: Schema.optionalKey(Schema.String) }))
type Author = typeof Author.Type
const optionalText = Schema.optionalKey(Schema.NullOr(Schema.String))

/** A check run or a commit status, as the query asks for them. */
const CheckContext = Schema.Struct({
  __typename: Schema.Literals(["CheckRun", "StatusContext"]),
  name: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(Schema.String),
  conclusion: optionalText,
  detailsUrl: optionalText,
  permalink: Schema.optionalKey(Schema.String),
  title: optionalText,
  summary: optionalText,
  text: optionalText,
  context: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  targetUrl: optionalText,
  description: optionalText
})
type CheckContext = typeof CheckContext.Type

const nodes = <S extends Schema.Top>(node: S) => Schema.Struct({ nodes: Schema.Array(node) })

/** One pull request as the query's `OrchPull` fragment asks for it. */
export const PullNode = Schema.Struct({
  number: Schema.Int,
  url: Schema.String,
  state: Schema.Literals(["OPEN", "CLOSED", "MERGED"]),
  isDraft: Schema.Boolean,
  mergeable: Schema.Literals(["MERGEABLE", "CONFLICTING", "UNKNOWN"]),
  reviewDecision: Schema.NullOr(Schema.Literals(["APPROVED", "CHANGES_REQUESTED", "REVIEW_REQUIRED"])),
  commits: nodes(Schema.Struct({ commit: Schema.Struct({ statusCheckRollup: Schema.NullOr(Schema.Struct({ contexts: nodes(CheckContext) })) }) })),
  latestOpinionatedReviews: Schema.NullOr(nodes(Schema.Struct({ state: Schema.String, body: Schema.String, url: Schema.String, author: Author }))),
  reviewThreads: nodes(Schema.Struct({
    isResolved: Schema.Boolean,
    isOutdated: Schema.Boolean,
    path: Schema.String,
    line: Schema.NullOr(Schema.Int),
    comments: nodes(Schema.Struct({ body: Schema.String, url: Schema.String, author: Author }))
  }))
})
export type PullNode = typeof PullNode.Type

/** The query's answer: per alias (`b0`, `b1`, …) the newest pull request of that branch, each read on its own. */
export const PullRequestsAnswer = Schema.Struct({
  repository: Schema.NullOr(Schema.Record(Schema.String, nodes(Schema.Unknown)))
})

export const NO_PULL_REQUEST: PullRequestView = { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] }

const FAILED_CONCLUSIONS = ["FAILURE", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"]
const EXCERPT_LINES = 20
const EXCERPT_CHARS = 1500

/** The end of a check's log, where the failure usually is. */
/** A failed check's title and summary as one line: each once (a check often repeats its title as its summary). */
export const checkSummary = (title: string | null | undefined, summary: string | null | undefined): string =>
  [...new Set([title, summary].filter((part): part is string => typeof part === "string" && part !== ""))].join(": ")

export const logExcerpt = (text: string | null | undefined): string | undefined => {
  const trimmed = (text ?? "").trim()
  if (trimmed === "") return undefined
  const tail = trimmed.split("\n").slice(-EXCERPT_LINES).join("\n")
  return tail.length > EXCERPT_CHARS ? `…${tail.slice(-EXCERPT_CHARS)}` : tail
}

export const readChecks = (contexts: ReadonlyArray<CheckContext>): Pick<PullRequestView, "checks" | "failingChecks"> => {
  const failingChecks: Array<FailingCheck> = []
  let pending = false
  for (const c of contexts) {
    if (c.__typename === "CheckRun") {
      if (c.status !== "COMPLETED") pending = true
      else if (FAILED_CONCLUSIONS.includes(c.conclusion ?? "")) {
        const url = c.detailsUrl ?? c.permalink
        const summary = checkSummary(c.title, c.summary)
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
