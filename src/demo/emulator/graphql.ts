/**
 * The emulator's GraphQL endpoint: a faithful subset of GitHub's v4 schema (every type, field and argument
 * here exists in GitHub's published schema with the same type; a test checks that), executed by graphql-js
 * over the emulator's model. Costs one point per query, as GitHub charges small queries.
 */
import { buildSchema, graphql, type GraphQLSchema } from "graphql"
import { rollUp } from "./merge-state.ts"
import type { Actor, CheckRun, Model, Pull, Repo, Review } from "./model.ts"

export const EMULATOR_SDL = /* GraphQL */ `
scalar DateTime
scalar URI
scalar GitObjectID

type Query {
  repository(owner: String!, name: String!): Repository
  rateLimit: RateLimit
}

type RateLimit { limit: Int! remaining: Int! used: Int! cost: Int! resetAt: DateTime! }

enum PullRequestState { OPEN CLOSED MERGED }
enum IssueOrderField { CREATED_AT UPDATED_AT COMMENTS }
enum OrderDirection { ASC DESC }
input IssueOrder { field: IssueOrderField! direction: OrderDirection! }

enum IssueState { OPEN CLOSED }
enum IssueStateReason { REOPENED NOT_PLANNED COMPLETED }
type Issue { number: Int! title: String! url: URI! state: IssueState! stateReason: IssueStateReason }

enum MergeStateStatus { BEHIND BLOCKED CLEAN DIRTY DRAFT UNKNOWN UNSTABLE }

type Repository {
  nameWithOwner: String!
  issue(number: Int!): Issue
  pullRequests(states: [PullRequestState!], headRefName: String, orderBy: IssueOrder, first: Int, last: Int): PullRequestConnection!
}

enum MergeableState { MERGEABLE CONFLICTING UNKNOWN }
enum PullRequestReviewDecision { CHANGES_REQUESTED APPROVED REVIEW_REQUIRED }
enum PullRequestReviewState { PENDING COMMENTED APPROVED CHANGES_REQUESTED DISMISSED }

type PullRequestConnection { nodes: [PullRequest] totalCount: Int! }
type PullRequest {
  number: Int!
  url: URI!
  state: PullRequestState!
  isDraft: Boolean!
  merged: Boolean!
  mergeable: MergeableState!
  mergeStateStatus: MergeStateStatus!
  reviewDecision: PullRequestReviewDecision
  headRefName: String!
  headRefOid: GitObjectID!
  baseRefName: String!
  baseRefOid: GitObjectID!
  commits(first: Int, last: Int): PullRequestCommitConnection!
  latestOpinionatedReviews(first: Int, last: Int): PullRequestReviewConnection
  reviews(first: Int, last: Int, states: [PullRequestReviewState!]): PullRequestReviewConnection
  reviewThreads(first: Int, last: Int): PullRequestReviewThreadConnection!
}

type PullRequestCommitConnection { nodes: [PullRequestCommit] }
type PullRequestCommit { commit: Commit! }
type Commit { oid: GitObjectID! statusCheckRollup: StatusCheckRollup }

enum StatusState { EXPECTED ERROR FAILURE PENDING SUCCESS }
enum CheckStatusState { REQUESTED QUEUED IN_PROGRESS COMPLETED WAITING PENDING }
enum CheckConclusionState { ACTION_REQUIRED TIMED_OUT CANCELLED FAILURE SUCCESS NEUTRAL SKIPPED STARTUP_FAILURE STALE }

type StatusCheckRollup { state: StatusState! contexts(first: Int, last: Int): StatusCheckRollupContextConnection! }
type StatusCheckRollupContextConnection { nodes: [StatusCheckRollupContext] totalCount: Int! }
union StatusCheckRollupContext = CheckRun | StatusContext
type CheckRun {
  name: String!
  status: CheckStatusState!
  conclusion: CheckConclusionState
  detailsUrl: URI
  permalink: URI!
  title: String
  summary: String
  text: String
}
type StatusContext { context: String! state: StatusState! targetUrl: URI description: String }

interface Actor { login: String! }
type User implements Actor { login: String! }
type Bot implements Actor { login: String! }

type PullRequestReviewConnection { nodes: [PullRequestReview] totalCount: Int! }
type PullRequestReview { author: Actor body: String! state: PullRequestReviewState! url: URI! }

type PullRequestReviewThreadConnection { nodes: [PullRequestReviewThread] totalCount: Int! }
type PullRequestReviewThread {
  isResolved: Boolean!
  isOutdated: Boolean!
  path: String!
  line: Int
  comments(first: Int, last: Int): PullRequestReviewCommentConnection!
}
type PullRequestReviewCommentConnection { nodes: [PullRequestReviewComment] totalCount: Int! }
type PullRequestReviewComment { author: Actor body: String! url: URI! }
`

interface Page {
  readonly first?: number | null
  readonly last?: number | null
}
const page = <A>(items: ReadonlyArray<A>, { first, last }: Page) => {
  const nodes = typeof first === "number" ? items.slice(0, first) : typeof last === "number" ? items.slice(Math.max(0, items.length - last)) : items
  return { nodes, totalCount: items.length }
}

const actor = (user: Actor) => ({ __typename: user.type, login: user.login })

/** The latest decisive review of each reviewer (what GitHub's `latestOpinionatedReviews` lists). */
const latestOpinionated = (reviews: ReadonlyArray<Review>) => {
  const latest = new Map<string, Review>()
  for (const review of reviews) if (review.state !== "COMMENTED") latest.set(review.user.login, review)
  return [...latest.values()]
}

const checkRunNode = (run: CheckRun) => ({
  __typename: "CheckRun",
  name: run.name,
  status: run.status.toUpperCase(),
  conclusion: run.conclusion?.toUpperCase() ?? null,
  detailsUrl: run.details_url,
  permalink: run.html_url,
  title: run.output.title,
  summary: run.output.summary,
  text: run.output.text
})

export const makeGraphql = (model: Model, rateLimit: () => { limit: number; remaining: number; used: number; resetAt: string }) => {
  const schema: GraphQLSchema = buildSchema(EMULATOR_SDL)

  const pullNode = (repo: Repo, pull: Pull) => {
    const sha = model.headSha(repo, pull.head)
    // Only a query that asks for the merge state computes it (and, when lazy, starts its job).
    let state: ReturnType<typeof model.pullMergeState> | undefined
    const merge = () => (state ??= model.pullMergeState(repo, pull))
    const reviews = repo.reviews.get(pull.number) ?? []
    const opinions = latestOpinionated(reviews)
    return {
      number: pull.number,
      url: model.pullUrl(repo, pull),
      state: pull.merged ? "MERGED" : pull.state.toUpperCase(),
      isDraft: pull.draft,
      merged: pull.merged,
      mergeable: () => merge().mergeable,
      mergeStateStatus: () => merge().mergeStateStatus,
      // Like a repository without required reviews: GitHub reports no decision there.
      reviewDecision: null,
      headRefName: pull.head,
      headRefOid: sha ?? "",
      baseRefName: pull.base,
      baseRefOid: () => model.headSha(repo, pull.base) ?? "",
      commits: (args: Page) => page(sha === undefined ? [] : [{ commit: { oid: sha, statusCheckRollup: rollup(repo, sha, pull.head) } }], args),
      latestOpinionatedReviews: (args: Page) => page(opinions.map(reviewNode), args),
      reviews: (args: Page & { readonly states?: ReadonlyArray<string> | null }) =>
        page(reviews.filter((r) => !args.states || args.states.includes(r.state)).map(reviewNode), args),
      reviewThreads: (args: Page) =>
        page(
          (repo.threads.get(pull.number) ?? []).map((thread) => ({
            isResolved: thread.resolved,
            isOutdated: false,
            path: thread.path,
            line: thread.line,
            comments: (commentArgs: Page) => page(thread.comments.map((c) => ({ author: actor(c.user), body: c.body, url: c.html_url })), commentArgs)
          })),
          args
        )
    }
  }
  const reviewNode = (review: Review) => ({ author: actor(review.user), body: review.body, state: review.state, url: review.html_url })

  const rollup = (repo: Repo, sha: string, branch: string) => {
    const runs = model.runCi(repo, sha, branch)
    const statuses = repo.statuses.get(sha) ?? []
    const contexts = [
      ...runs.map(checkRunNode),
      ...statuses.map((s) => ({
        __typename: "StatusContext",
        context: s.context,
        state: s.state.toUpperCase(),
        targetUrl: s.target_url,
        description: s.description
      }))
    ]
    const state = rollUp(runs, statuses)
    return {
      state: state === "none" ? "SUCCESS" : state.toUpperCase(),
      contexts: (args: Page) => page(contexts, args)
    }
  }

  const root = {
    rateLimit: () => ({ ...rateLimit(), cost: 1 }),
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = model.repos.get(`${owner}/${name}`)
      if (repo === undefined) return null
      return {
        nameWithOwner: repo.fullName,
        issue: ({ number }: { number: number }) => {
          const issue = repo.issues.get(number)
          return issue === undefined ? null : {
            number,
            title: issue.title,
            url: `${model.repoUrl(repo)}/issues/${number}`,
            state: issue.state.toUpperCase(),
            stateReason: issue.state === "closed" ? issue.stateReason ?? "COMPLETED" : null
          }
        },
        pullRequests: (
          args: Page & { readonly headRefName?: string | null; readonly states?: ReadonlyArray<string> | null; readonly orderBy?: { direction: string } | null }
        ) => {
          const pulls = [...repo.pulls.values()]
            .filter((p) => (args.headRefName == null || p.head === args.headRefName))
            .filter((p) => !args.states || args.states.includes(p.merged ? "MERGED" : p.state.toUpperCase()))
            .sort((a, b) => (args.orderBy?.direction === "DESC" ? b.number - a.number : a.number - b.number))
          return page(pulls.map((p) => pullNode(repo, p)), args)
        }
      }
    }
  }

  return (query: string, variables: Record<string, unknown> | undefined) =>
    graphql({ schema, source: query, rootValue: root, ...(variables ? { variableValues: variables } : {}) })
}
