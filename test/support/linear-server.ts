/**
 * A local stand-in for Linear's GraphQL API (`POST /graphql`), for tests. Every document is parsed and
 * validated against Linear's schema (linear-schema.ts, from @linear/sdk) and executed by graphql-js against
 * the issues it is given, so answers have Linear's shapes, `null` propagation and error format: a refused key
 * is HTTP 401 with an `AUTHENTICATION_ERROR`, an invalid document HTTP 400 with `GRAPHQL_VALIDATION_FAILED`, a
 * missing issue HTTP 200 with "Entity not found: Issue", rate limiting HTTP 400 with `RATELIMITED`; every
 * answer carries the `X-RateLimit-*` headers. It records each request.
 */
import * as Effect from "effect/Effect"
import { type DocumentNode, execute, GraphQLError, parse, validate } from "graphql"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { linearSchema } from "./linear-schema.ts"

export interface LinearTeam {
  readonly id: string
  readonly key: string
}

export interface LinearIssueFixture {
  readonly identifier: string
  readonly title: string
  readonly description?: string | null
  readonly branchName?: string
  readonly state?: { readonly name: string; readonly type: string }
  readonly labels?: ReadonlyArray<string>
}

export interface LinearRequest {
  readonly headers: IncomingHttpHeaders
  readonly query: string
  readonly variables: Record<string, unknown>
  readonly status: number
}

export interface LinearServerOptions {
  readonly apiKey: string
  readonly teams: ReadonlyArray<LinearTeam>
  readonly issues: ReadonlyArray<LinearIssueFixture>
}

const REQUESTS_LIMIT = 1500
const notFound = (entity: string) =>
  new GraphQLError(`Entity not found: ${entity}`, {
    extensions: { type: "invalid input", code: "INPUT_ERROR", statusCode: 400, userError: true, userPresentableMessage: `Could not find referenced ${entity}.` }
  })
const errorBody = (message: string, extensions: Record<string, unknown>) => ({ errors: [{ message, extensions }] })

export const linearServer = (options: LinearServerOptions) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly url: string
      readonly requests: Array<LinearRequest>
      readonly comments: Array<{ readonly issue: string; readonly body: string }>
      /** Moves an issue to another workflow state. */
      readonly setState: (identifier: string, state: { readonly name: string; readonly type: string }) => void
      /** While true, every request is answered as rate limited. */
      rateLimited: boolean
      readonly close: () => void
    }>((resume) => {
      const schema = linearSchema()
      const states = new Map(options.issues.map((issue) => [issue.identifier, issue.state ?? { name: "Todo", type: "unstarted" }]))
      const requests: Array<LinearRequest> = []
      const comments: Array<{ issue: string; body: string }> = []
      let remaining = REQUESTS_LIMIT
      const resetAt = Date.now() + 3_600_000

      const teamOf = (identifier: string) => options.teams.find((team) => identifier.startsWith(`${team.key}-`))!
      const view = (issue: LinearIssueFixture) => {
        const team = teamOf(issue.identifier)
        const number = Number(issue.identifier.split("-")[1])
        return {
          id: `uuid-${issue.identifier}`,
          identifier: issue.identifier,
          number,
          title: issue.title,
          description: issue.description ?? null,
          url: `https://linear.app/acme/issue/${issue.identifier}`,
          branchName: issue.branchName ?? `alice/${issue.identifier.toLowerCase()}`,
          state: { id: `state-${issue.identifier}`, ...states.get(issue.identifier)! },
          team: { id: team.id, key: team.key, name: team.key },
          labels: () => ({ nodes: (issue.labels ?? []).map((name) => ({ id: `label-${name}`, name })) })
        }
      }
      const find = (id: string) => options.issues.find((issue) => issue.identifier.toLowerCase() === id.toLowerCase() || `uuid-${issue.identifier}` === id)

      type Filter = {
        team?: { id?: { eq?: string }; key?: { eq?: string; eqIgnoreCase?: string } }
        number?: { in?: Array<number> }
        state?: { type?: { nin?: Array<string> } }
        and?: Array<{ labels?: { some?: { name?: { eqIgnoreCase?: string } } } }>
      }
      const rootValue = {
        issue: ({ id }: { id: string }) => {
          const issue = find(id)
          if (issue === undefined) throw notFound("Issue")
          return view(issue)
        },
        issues: ({ filter = {}, first = 50 }: { filter?: Filter; first?: number }) => {
          const unsupported = Object.keys(filter).filter((key) => !["team", "number", "state", "and"].includes(key))
          if (unsupported.length > 0) throw new Error(`the test server does not filter by ${unsupported.join(", ")}`)
          const nodes = options.issues.map(view).filter((issue) =>
            (filter.team?.id?.eq === undefined || issue.team.id === filter.team.id.eq) &&
            (filter.team?.key?.eq === undefined || issue.team.key === filter.team.key.eq) &&
            (filter.team?.key?.eqIgnoreCase === undefined || issue.team.key.toLowerCase() === filter.team.key.eqIgnoreCase.toLowerCase()) &&
            (filter.number?.in === undefined || filter.number.in.includes(issue.number)) &&
            (filter.state?.type?.nin === undefined || !filter.state.type.nin.includes(issue.state.type)) &&
            (filter.and ?? []).every((part) => {
              const name = part.labels?.some?.name?.eqIgnoreCase
              if (name === undefined) throw new Error(`the test server does not filter by ${JSON.stringify(part)}`)
              return issue.labels().nodes.some((label) => label.name.toLowerCase() === name.toLowerCase())
            })
          )
          return { nodes: nodes.slice(0, first), pageInfo: { hasNextPage: nodes.length > first, hasPreviousPage: false } }
        },
        commentCreate: ({ input }: { input: { issueId?: string; body?: string } }) => {
          const issue = input.issueId === undefined ? undefined : find(input.issueId)
          if (issue === undefined) throw notFound("Issue")
          comments.push({ issue: issue.identifier, body: input.body ?? "" })
          return { success: true, lastSyncId: comments.length, comment: { id: `comment-${comments.length}`, body: input.body ?? "" } }
        }
      }

      const answer = (res: ServerResponse, request: Omit<LinearRequest, "status">, status: number, body: unknown) => {
        requests.push({ ...request, status })
        remaining = Math.max(0, remaining - 1)
        res.writeHead(status, {
          "content-type": "application/json; charset=utf-8",
          "x-ratelimit-requests-limit": String(REQUESTS_LIMIT),
          "x-ratelimit-requests-remaining": String(server.rateLimited ? 0 : remaining),
          "x-ratelimit-requests-reset": String(resetAt),
          "x-complexity": "10"
        }).end(JSON.stringify(body))
      }

      const http = createServer((req, res) => {
        let raw = ""
        req.on("data", (chunk) => (raw += chunk))
        req.on("end", () => {
          if (req.method !== "POST" || req.url !== "/graphql") {
            res.writeHead(404, { "content-type": "text/plain" }).end("Not Found")
            return
          }
          let payload: { query?: unknown; variables?: Record<string, unknown> }
          try {
            payload = JSON.parse(raw) as typeof payload
          } catch {
            return answer(
              res,
              { headers: req.headers, query: "", variables: {} },
              400,
              errorBody("Body is not JSON", { code: "BAD_REQUEST", type: "graphql error" })
            )
          }
          const request = { headers: req.headers, query: String(payload.query ?? ""), variables: payload.variables ?? {} }
          if (req.headers.authorization !== options.apiKey) {
            return answer(
              res,
              request,
              401,
              errorBody("Authentication required, not authenticated", {
                type: "authentication error",
                code: "AUTHENTICATION_ERROR",
                statusCode: 401,
                userError: true,
                userPresentableMessage: "You need to authenticate to access this operation."
              })
            )
          }
          if (server.rateLimited) {
            return answer(
              res,
              request,
              400,
              errorBody("Rate limit exceeded", {
                type: "ratelimited",
                code: "RATELIMITED",
                statusCode: 429,
                userError: true,
                userPresentableMessage: "Too many requests. Please wait and try again."
              })
            )
          }
          let document: DocumentNode
          try {
            document = parse(request.query)
          } catch (error) {
            return answer(res, request, 400, {
              errors: [{ ...(error as GraphQLError).toJSON(), extensions: { code: "GRAPHQL_PARSE_FAILED", type: "graphql error" } }]
            })
          }
          const invalid = validate(schema, document)
          if (invalid.length > 0) {
            return answer(res, request, 400, {
              errors: invalid.map((error) => ({ ...error.toJSON(), extensions: { code: "GRAPHQL_VALIDATION_FAILED", type: "graphql error", userError: true } }))
            })
          }
          Promise.resolve(execute({ schema, document, rootValue, variableValues: request.variables })).then((result) =>
            result.data === undefined
              // Variables that do not fit their types: the request fails as a whole.
              ? answer(res, request, 400, {
                errors: (result.errors ?? []).map((e) => ({ ...e.toJSON(), extensions: { code: "BAD_USER_INPUT", type: "invalid input", userError: true } }))
              })
              : answer(res, request, 200, { ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}), data: result.data })
          )
        })
      })
      const server = {
        url: "",
        requests,
        comments,
        setState: (identifier: string, state: { readonly name: string; readonly type: string }) => void states.set(identifier, state),
        rateLimited: false,
        close: () => http.close()
      }
      http.listen(0, "127.0.0.1", () => {
        server.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`
        resume(Effect.succeed(server))
      })
    }),
    (server) => Effect.sync(() => server.close())
  )
