/**
 * One HTTP gateway per repohost credential: conditional GETs with ETags (a 304 costs no rate limit and gives
 * the cached body back), and the rate-limit headers remembered so callers can see the budget.
 */
import * as Effect from "effect/Effect"
import { ScmError } from "./Scm.ts"

export interface RateBudget {
  readonly limit: number
  readonly remaining: number
  /** Unix seconds. */
  readonly reset: number
  /** Unix ms before which the host asked for no requests (Retry-After, secondary limits). */
  readonly blockedUntil?: number
}

export interface Gateway {
  readonly get: <A>(path: string) => Effect.Effect<A, ScmError>
  readonly send: <A>(method: "POST" | "PUT" | "PATCH", path: string, body: unknown) => Effect.Effect<A, ScmError>
  readonly budget: () => RateBudget | undefined
}

const errorMessage = (text: string): string => {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message
    return typeof message === "string" ? `: ${message}` : ""
  } catch {
    return ""
  }
}

export const makeGateway = (plugin: string, apiUrl: string, headers: Readonly<Record<string, string>>): Gateway => {
  const cache = new Map<string, { readonly etag: string; readonly body: unknown }>()
  let budget: RateBudget | undefined
  let blockedUntil: number | undefined
  const remember = (response: Response) => {
    const limit = Number(response.headers.get("x-ratelimit-limit"))
    const remaining = Number(response.headers.get("x-ratelimit-remaining"))
    const reset = Number(response.headers.get("x-ratelimit-reset"))
    if (Number.isFinite(limit) && Number.isFinite(remaining) && response.headers.has("x-ratelimit-remaining")) budget = { limit, remaining, reset }
    // 429, or a 403 secondary limit: wait as told (Retry-After), or until the reset when the budget is spent.
    if (response.status === 429 || (response.status === 403 && (response.headers.has("retry-after") || remaining === 0))) {
      const retryAfter = Number(response.headers.get("retry-after"))
      blockedUntil = Number.isFinite(retryAfter) && retryAfter > 0 ? Date.now() + retryAfter * 1000 : Number.isFinite(reset) ? reset * 1000 : Date.now() + 60_000
    }
  }
  const failed = (operation: string, reason: string) => new ScmError({ plugin, operation, reason })
  const request = (method: string, path: string, body?: unknown, etag?: string) =>
    blockedUntil !== undefined && blockedUntil > Date.now()
      ? Effect.fail(failed(`${method} ${path}`, `rate limited until ${new Date(blockedUntil).toISOString()}`))
      : Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          headers: { ...headers, ...(etag ? { "if-none-match": etag } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)])
        })
        remember(response)
        return { status: response.status, etag: response.headers.get("etag"), text: response.status === 304 ? "" : await response.text() }
      },
      catch: (cause) => failed(`${method} ${path}`, cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause))
    })
  const parse = (operation: string, status: number, text: string) =>
    status >= 200 && status < 300
      ? Effect.try({ try: () => (text === "" ? null : JSON.parse(text)), catch: () => failed(operation, "the answer was not JSON") })
      : Effect.fail(failed(operation, `HTTP ${status}${errorMessage(text)}`))

  return {
    get: <A>(path: string) =>
      Effect.gen(function*() {
        const cached = cache.get(path)
        const response = yield* request("GET", path, undefined, cached?.etag)
        if (response.status === 304 && cached !== undefined) return cached.body as A
        const body = yield* parse(`GET ${path}`, response.status, response.text)
        if (response.etag !== null) cache.set(path, { etag: response.etag, body })
        return body as A
      }),
    send: <A>(method: "POST" | "PUT" | "PATCH", path: string, body: unknown) =>
      Effect.flatMap(request(method, path, body), (response) => parse(`${method} ${path}`, response.status, response.text) as Effect.Effect<A, ScmError>),
    budget: () => (budget === undefined ? undefined : { ...budget, ...(blockedUntil !== undefined ? { blockedUntil } : {}) })
  }
}
