/**
 * One HTTP gateway per repohost credential (API URL + token), shared by everything in the process that talks
 * to that host: conditional GETs with ETags (a 304 costs no rate limit and gives the cached body back),
 * identical GETs in flight at once made only once, at most MAX_CONCURRENT requests at a time, GraphQL queries,
 * and a governor: the budget of each rate-limit resource (`core`, `graphql`) as last seen, and a stop after
 * 429/403 (until Retry-After or the reset), a GraphQL RATE_LIMITED, or a run of server errors (backing off).
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Semaphore from "effect/Semaphore"
import { ScmError } from "./Scm.ts"

export interface RateBudget {
  readonly limit: number
  readonly remaining: number
  /** Unix seconds. */
  readonly reset: number
  /** Unix ms before which the gateway makes no requests (Retry-After, secondary limits, server errors). */
  readonly blockedUntil?: number
  /** `core` (REST) or `graphql`. */
  readonly resource?: string
}

export interface Gateway {
  readonly get: <A>(path: string) => Effect.Effect<A, ScmError>
  readonly send: <A>(method: "POST" | "PUT" | "PATCH", path: string, body: unknown) => Effect.Effect<A, ScmError>
  /** A GraphQL query; its `data`, or a failure with GitHub's error messages. */
  readonly graphql: <A>(query: string, variables: Record<string, unknown>) => Effect.Effect<A, ScmError>
  /** The tightest budget (least share left) of the resources seen so far. */
  readonly budget: () => RateBudget | undefined
}

export const MAX_CONCURRENT = 8
/** Server errors in a row before the gateway backs off, and the longest back-off. */
const SERVER_ERRORS_BEFORE_BACKOFF = 2
const MAX_BACKOFF_MS = 5 * 60_000

/** GraphQL lives at /graphql on github.com and at /api/graphql on GitHub Enterprise (REST at /api/v3). */
export const graphqlUrl = (apiUrl: string): string => (/\/api\/v3$/.test(apiUrl) ? apiUrl.replace(/\/api\/v3$/, "/api/graphql") : `${apiUrl}/graphql`)

const errorMessage = (text: string): string => {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message
    return typeof message === "string" ? `: ${message}` : ""
  } catch {
    return ""
  }
}

interface Answer {
  readonly status: number
  readonly etag: string | null
  readonly text: string
}

export const makeGateway = (plugin: string, apiUrl: string, headers: Readonly<Record<string, string>>): Gateway => {
  const cache = new Map<string, { readonly etag: string; readonly body: unknown }>()
  const budgets = new Map<string, RateBudget>()
  const inflight = new Map<string, Deferred.Deferred<Answer, ScmError>>()
  const permits = Semaphore.makeUnsafe(MAX_CONCURRENT)
  let blockedUntil: number | undefined
  let serverErrors = 0

  const block = (untilMs: number) => {
    blockedUntil = Math.max(blockedUntil ?? 0, untilMs)
  }
  const remember = (response: Response) => {
    const limit = Number(response.headers.get("x-ratelimit-limit"))
    const remaining = Number(response.headers.get("x-ratelimit-remaining"))
    const reset = Number(response.headers.get("x-ratelimit-reset"))
    const resource = response.headers.get("x-ratelimit-resource") ?? "core"
    if (response.headers.has("x-ratelimit-remaining") && Number.isFinite(limit) && Number.isFinite(remaining)) budgets.set(resource, { limit, remaining, reset, resource })
    // 429, or a 403 secondary limit: wait as told (Retry-After), or until the reset when the budget is spent.
    if (response.status === 429 || (response.status === 403 && (response.headers.has("retry-after") || remaining === 0))) {
      const retryAfter = Number(response.headers.get("retry-after"))
      block(Number.isFinite(retryAfter) && retryAfter > 0 ? Date.now() + retryAfter * 1000 : Number.isFinite(reset) && reset > 0 ? reset * 1000 : Date.now() + 60_000)
    }
    // A storm of server errors: stop asking for a while, longer each time, instead of adding to the storm.
    if (response.status >= 500) {
      serverErrors++
      if (serverErrors >= SERVER_ERRORS_BEFORE_BACKOFF) block(Date.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (serverErrors - SERVER_ERRORS_BEFORE_BACKOFF)))
    } else serverErrors = 0
  }
  const failed = (operation: string, reason: string, status?: number) => new ScmError({ plugin, operation, reason, ...(status !== undefined ? { status } : {}) })

  const request = (method: string, url: string, operation: string, body?: unknown, etag?: string) =>
    Effect.suspend(() =>
      blockedUntil !== undefined && blockedUntil > Date.now()
        ? Effect.fail(failed(operation, `the host asked for a pause until ${new Date(blockedUntil).toISOString()}`))
        : Effect.tryPromise({
          try: async (signal): Promise<Answer> => {
            const response = await fetch(url, {
              method,
              headers: { ...headers, ...(etag ? { "if-none-match": etag } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
              ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
              signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)])
            })
            remember(response)
            return { status: response.status, etag: response.headers.get("etag"), text: response.status === 304 ? "" : await response.text() }
          },
          catch: (cause) => failed(operation, cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause))
        })
    ).pipe(permits.withPermits(1))

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
      ? Effect.try({ try: () => (answer.text === "" ? null : JSON.parse(answer.text)), catch: () => failed(operation, "the answer was not JSON") })
      : Effect.fail(failed(operation, `HTTP ${answer.status}${errorMessage(answer.text)}`, answer.status))

  return {
    get: <A>(path: string) =>
      Effect.gen(function*() {
        const operation = `GET ${path}`
        const answer = yield* once(path, Effect.suspend(() => request("GET", `${apiUrl}${path}`, operation, undefined, cache.get(path)?.etag)))
        const cached = cache.get(path)
        if (answer.status === 304 && cached !== undefined) return cached.body as A
        const body = yield* parse(operation, answer)
        if (answer.etag !== null) cache.set(path, { etag: answer.etag, body })
        return body as A
      }),
    send: <A>(method: "POST" | "PUT" | "PATCH", path: string, body: unknown) =>
      Effect.flatMap(request(method, `${apiUrl}${path}`, `${method} ${path}`, body), (answer) => parse(`${method} ${path}`, answer) as Effect.Effect<A, ScmError>),
    graphql: <A>(query: string, variables: Record<string, unknown>) =>
      Effect.gen(function*() {
        const operation = `GraphQL ${/^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? "query"}`
        const answer = yield* request("POST", graphqlUrl(apiUrl), operation, { query, variables })
        const result = (yield* parse(operation, answer)) as { data?: A | null; errors?: ReadonlyArray<{ type?: string; message?: string }> } | null
        const errors = result?.errors ?? []
        if (errors.some((e) => e.type === "RATE_LIMITED")) {
          const reset = budgets.get("graphql")?.reset
          block(reset !== undefined && reset > 0 ? reset * 1000 : Date.now() + 60_000)
        }
        if (result?.data === undefined || result.data === null || errors.length > 0) {
          return yield* failed(operation, errors.map((e) => e.message ?? e.type ?? "error").join("; ") || "no data in the answer")
        }
        return result.data
      }),
    budget: () => {
      const tightest = [...budgets.values()].sort((a, b) => a.remaining / Math.max(1, a.limit) - b.remaining / Math.max(1, b.limit))[0]
      if (blockedUntil !== undefined && blockedUntil > Date.now()) return { ...(tightest ?? { limit: 0, remaining: 0, reset: 0 }), blockedUntil }
      return tightest
    }
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
