/**
 * One HTTP gateway per repohost credential (API URL + token), shared by everything in the process that talks
 * to that host: conditional GETs with ETags (a 304 costs no rate limit and gives the cached body back),
 * identical GETs in flight at once made only once, at most MAX_CONCURRENT requests at a time, GraphQL queries,
 * and the governor (governor.ts) deciding on the Clock's time whether a request may go. Every answer is read
 * with a Schema: a malformed one is an ScmError naming the field.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import type { RateBudget } from "../../domain/rate-budget.ts"
import { type Expected, expected, readAnswer } from "../answer.ts"
import { ScmError } from "../scm/Scm.ts"
import { admission, afterAnswer, afterRateLimited, FRESH, type GovernorState, tightestBudget } from "./governor.ts"

export interface Gateway {
  /** A REST GET, its answer read as `answer` says. */
  readonly get: <A>(path: string, answer: Expected<A>) => Effect.Effect<A, ScmError>
  readonly send: <A>(method: "POST" | "PUT" | "PATCH", path: string, body: unknown, answer: Expected<A>) => Effect.Effect<A, ScmError>
  /** A GraphQL query; its `data` read as `answer` says, or a failure with GitHub's error messages. */
  readonly graphql: <A>(query: string, variables: Record<string, unknown>, answer: Expected<A>) => Effect.Effect<A, ScmError>
  /** The tightest budget (least share left) of the resources seen so far, with a pause the host asked for. */
  readonly budget: () => RateBudget | undefined
}

export const MAX_CONCURRENT = 8
/** How long a request may take, answer included. */
export const REQUEST_TIMEOUT = "15 seconds"

/** GraphQL lives at /graphql on github.com and at /api/graphql on GitHub Enterprise (REST at /api/v3). */
export const graphqlUrl = (apiUrl: string): string => (apiUrl.endsWith("/api/v3") ? `${apiUrl.slice(0, -"/api/v3".length)}/api/graphql` : `${apiUrl}/graphql`)

/** GitHub's `{ "message": … }` on a failed request, when it says one. */
const ErrorBody = Schema.fromJsonString(Schema.Struct({ message: Schema.String }))
const errorMessage = (text: string): string => {
  const body = Schema.decodeUnknownOption(ErrorBody)(text)
  return body._tag === "Some" ? `: ${body.value.message}` : ""
}

/** A GraphQL answer: `data`, and `errors` when something went wrong. */
const GraphQLAnswer = Schema.Struct({
  data: Schema.optionalKey(Schema.NullOr(Schema.Unknown)),
  errors: Schema.optionalKey(Schema.Array(Schema.Struct({ type: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) })))
})

interface Answer {
  readonly status: number
  readonly etag: string | null
  readonly text: string
}

export const makeGateway = (plugin: string, apiUrl: string, headers: Readonly<Record<string, string>>): Gateway => {
  const cache = new Map<string, { readonly etag: string; readonly body: unknown }>()
  const inflight = new Map<string, Deferred.Deferred<Answer, ScmError>>()
  const permits = Semaphore.makeUnsafe(MAX_CONCURRENT)
  const governor = Ref.makeUnsafe<GovernorState>(FRESH)
  const govern = (next: (state: GovernorState, nowMs: number) => GovernorState) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(governor, (state) => next(state, now)))

  const failed = (operation: string, reason: string, status?: number) =>
    new ScmError({ plugin, operation, reason, ...(status !== undefined ? { status } : {}) })

  const exchange = (method: string, url: string, operation: string, body?: unknown, etag?: string) =>
    Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(url, {
          method,
          headers: { ...headers, ...(etag ? { "if-none-match": etag } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal
        })
        const text = response.status === 304 ? "" : await response.text()
        return { status: response.status, headers: Object.fromEntries(response.headers), etag: response.headers.get("etag"), text }
      },
      catch: (cause) => failed(operation, cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause))
    }).pipe(Effect.timeoutOrElse({ duration: REQUEST_TIMEOUT, orElse: () => Effect.fail(failed(operation, `no answer within ${REQUEST_TIMEOUT}`)) }))

  /** One request, when the governor lets it go; what the answer says of the rate limit is remembered. */
  const request = (method: string, url: string, operation: string, body?: unknown, etag?: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const admitted = yield* Ref.modify(governor, (state) => {
        const decision = admission(state, now)
        return [decision, decision._tag === "Send" ? decision.state : state] as const
      })
      if (admitted._tag === "Wait") return yield* failed(operation, `the host asked for a pause until ${new Date(admitted.untilMs).toISOString()}`)
      const answer = yield* exchange(method, url, operation, body, etag)
      yield* govern((state, at) => afterAnswer(state, answer, at))
      return { status: answer.status, etag: answer.etag, text: answer.text } satisfies Answer
    }).pipe(permits.withPermits(1))

  /** The same GET asked again while the first is still on its way waits for the first's answer. */
  const once = (key: string, effect: Effect.Effect<Answer, ScmError>) =>
    Effect.suspend(() => {
      const running = inflight.get(key)
      if (running !== undefined) return Deferred.await(running)
      const deferred = Deferred.makeUnsafe<Answer, ScmError>()
      inflight.set(key, deferred)
      return Effect.onExit(effect, (exit) =>
        Effect.sync(() => {
          inflight.delete(key)
          Deferred.doneUnsafe(deferred, Exit.isSuccess(exit) || !Exit.hasInterrupts(exit) ? exit : Exit.fail(failed(key, "interrupted")))
        }))
    })

  const parse = (operation: string, answer: Answer) =>
    answer.status >= 200 && answer.status < 300
      ? Effect.try({ try: (): unknown => (answer.text === "" ? null : JSON.parse(answer.text)), catch: () => failed(operation, "the answer was not JSON") })
      : Effect.fail(failed(operation, `HTTP ${answer.status}${errorMessage(answer.text)}`, answer.status))

  const read = <A>(operation: string, answer: Expected<A>) => (body: unknown) =>
    Effect.mapError(readAnswer(answer)(body), (problem) => failed(operation, `the repohost ${problem}`))

  return {
    get: (path, expectedAnswer) =>
      Effect.gen(function*() {
        const operation = `GET ${path}`
        const answer = yield* once(path, Effect.suspend(() => request("GET", `${apiUrl}${path}`, operation, undefined, cache.get(path)?.etag)))
        const cached = cache.get(path)
        if (answer.status === 304 && cached !== undefined) return yield* read(operation, expectedAnswer)(cached.body)
        const body = yield* parse(operation, answer)
        if (answer.etag !== null) cache.set(path, { etag: answer.etag, body })
        return yield* read(operation, expectedAnswer)(body)
      }),
    send: (method, path, body, expectedAnswer) =>
      Effect.flatMap(
        request(method, `${apiUrl}${path}`, `${method} ${path}`, body),
        (answer) => Effect.flatMap(parse(`${method} ${path}`, answer), read(`${method} ${path}`, expectedAnswer))
      ),
    graphql: (query, variables, expectedAnswer) =>
      Effect.gen(function*() {
        const operation = `GraphQL ${/^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? "query"}`
        const answer = yield* request("POST", graphqlUrl(apiUrl), operation, { query, variables })
        const result = yield* Effect.flatMap(parse(operation, answer), read(operation, expected(GraphQLAnswer, "a GraphQL query")))
        const errors = result.errors ?? []
        if (errors.some((e) => e.type === "RATE_LIMITED")) yield* govern(afterRateLimited)
        if (result.data === undefined || result.data === null || errors.length > 0) {
          return yield* failed(operation, errors.map((e) => e.message ?? e.type ?? "error").join("; ") || "no data in the answer")
        }
        return yield* read(operation, expectedAnswer)(result.data)
      }),
    budget: () => tightestBudget(Ref.getUnsafe(governor))
  }
}

/** The gateways of a process, one per credential (API URL + token): the trackers and scms of all its projects share them. */
export interface Gateways {
  readonly for: (plugin: string, apiUrl: string, headers: Readonly<Record<string, string>>) => Gateway
}

export const makeGateways = (): Gateways => {
  const byCredential = new Map<string, Gateway>()
  return {
    for: (plugin, apiUrl, headers) => {
      const key = `${apiUrl}\n${headers.authorization ?? ""}`
      let gateway = byCredential.get(key)
      if (gateway === undefined) byCredential.set(key, gateway = makeGateway(plugin, apiUrl, headers))
      return gateway
    }
  }
}
