/**
 * Linear's GraphQL API as tracker `tracker-b` uses it: the documents it sends (each validated against Linear's
 * published schema in test/plugins/tracker/linear-schema.test.ts), one request, and how Linear's answers read.
 * Linear reports most failures in `errors[]` (with `extensions.type`/`code`), under HTTP 200 or 400, so an
 * answer is read body first and by status only when the body says nothing.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { answerProblem } from "../answer.ts"

export const DEFAULT_LINEAR_API_URL = "https://api.linear.app/graphql"

/** What orch reads of an issue, in ISSUE_QUERY and OPEN_ISSUES_QUERY alike. */
const ISSUE_FIELDS = `identifier
    title
    description
    url
    branchName
    state { name type }
    labels(first: 50) { nodes { name } }`

export const ISSUE_QUERY = `query OrchIssue($id: String!) {
  issue(id: $id) {
    ${ISSUE_FIELDS}
    team { id key }
  }
}`

/** States of many issues in one request: by team and number (`issue(id:)` cannot be batched without aliases). */
export const ISSUE_STATES_QUERY = `query OrchIssueStates($filter: IssueFilter!, $first: Int!) {
  issues(filter: $filter, first: $first, includeArchived: true) {
    nodes { identifier number state { name type } }
  }
}`

/** Open issues of a team with given labels, newest first: what intake queues. */
export const OPEN_ISSUES_QUERY = `query OrchOpenIssues($filter: IssueFilter!, $first: Int!) {
  issues(filter: $filter, first: $first, orderBy: createdAt) {
    nodes {
    ${ISSUE_FIELDS}
    }
  }
}`

export const COMMENT_MUTATION = `mutation OrchComment($input: CommentCreateInput!) {
  commentCreate(input: $input) { success }
}`

/** Workflow state types whose issue's work is over. (`duplicate` issues are closed as duplicates.) */
export const COMPLETED_STATE_TYPES: ReadonlyArray<string> = ["completed", "canceled", "duplicate"]

export type LinearAnswer =
  | { readonly _tag: "Data"; readonly data: unknown }
  | { readonly _tag: "NotFound"; readonly message: string }
  | { readonly _tag: "AuthFailed"; readonly message: string }
  | { readonly _tag: "Failed"; readonly reason: string }

/** A GraphQL answer as Linear gives it: `data`, or `errors` with Linear's `extensions`. */
const LinearBody = Schema.Struct({
  data: Schema.optionalKey(Schema.NullOr(Schema.Unknown)),
  errors: Schema.optionalKey(Schema.Array(Schema.Struct({
    message: Schema.optionalKey(Schema.String),
    extensions: Schema.optionalKey(Schema.Struct({
      type: Schema.optionalKey(Schema.String),
      code: Schema.optionalKey(Schema.String),
      userPresentableMessage: Schema.optionalKey(Schema.String)
    }))
  })))
})
const readBody = Schema.decodeUnknownResult(LinearBody)

/** How long a request may take, answer included. */
export const LINEAR_TIMEOUT = "10 seconds"

const resetTime = (header: string | null): string => {
  const at = Number(header)
  return header !== null && Number.isFinite(at) && at > 0 ? ` until ${new Date(at).toISOString()}` : ""
}

/** One HTTP answer of Linear's, read. Pure. */
export const readAnswer = (status: number, text: string, header: (name: string) => string | null): LinearAnswer => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  const decoded = json === undefined ? undefined : readBody(json, { errors: "all", reportInput: true })
  if (decoded !== undefined && Result.isFailure(decoded)) {
    return { _tag: "Failed", reason: `Linear ${answerProblem("a GraphQL request", decoded.failure.issue)}` }
  }
  const body = decoded?.success
  const rateLimited = (): LinearAnswer => ({ _tag: "Failed", reason: `rate limited${resetTime(header("x-ratelimit-requests-reset"))}` })
  const first = body?.errors?.[0]
  if (first !== undefined) {
    const kind = `${first.extensions?.code ?? ""} ${first.extensions?.type ?? ""}`.toLowerCase()
    const message = first.extensions?.userPresentableMessage ?? first.message ?? "unknown error"
    if (/authentication/.test(kind)) return { _tag: "AuthFailed", message }
    if (/forbidden/.test(kind)) return { _tag: "AuthFailed", message: `not allowed: ${message}` }
    if (/ratelimited/.test(kind)) return rateLimited()
    if (/^entity not found/i.test(first.message ?? "")) return { _tag: "NotFound", message: first.message! }
    return { _tag: "Failed", reason: (body?.errors ?? []).map((e) => e.message ?? "unknown error").join("; ") }
  }
  if (status === 401 || status === 403) return { _tag: "AuthFailed", message: `HTTP ${status}` }
  if (status === 429) return rateLimited()
  if (status !== 200) return { _tag: "Failed", reason: `HTTP ${status}` }
  if (body?.data === undefined || body.data === null) return { _tag: "Failed", reason: "the answer had no data" }
  return { _tag: "Data", data: body.data }
}

export interface LinearEndpoint {
  readonly apiUrl: string
  readonly apiKey: string
}

/** Sends one document. Fails only when Linear could not be reached (the reason, for a warning). */
export const linearRequest = (endpoint: LinearEndpoint, query: string, variables: Record<string, unknown>) =>
  Effect.gen(function*() {
    const describe = (cause: unknown) => (cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause))
    // Node's built-in fetch (undici, already in the runtime) costs a CLI process nothing to load.
    const { response, text } = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(endpoint.apiUrl, {
          method: "POST",
          // Linear's personal API keys go as they are, without "Bearer".
          headers: { authorization: endpoint.apiKey, "content-type": "application/json", "user-agent": "orch" },
          body: JSON.stringify({ query, variables }),
          signal
        })
        return { response, text: await response.text() }
      },
      catch: describe
    }).pipe(Effect.timeoutOrElse({ duration: LINEAR_TIMEOUT, orElse: () => Effect.fail(`no answer within ${LINEAR_TIMEOUT}`) }))
    return readAnswer(response.status, text, (name) => response.headers.get(name))
  })
