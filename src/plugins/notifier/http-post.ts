/**
 * POST a JSON body with retries, shared by the `webhook` and `chat` notifiers.
 *
 * Retried: 429, every 5xx and network errors (refused, name resolution, reset, the 10 s per-attempt timeout).
 * Not retried: every other status outside 2xx. The delay before retry k (from 1) is `retryDelayMs * 2^(k-1)`,
 * or a 429's `Retry-After` (seconds or an HTTP date, capped at 5 minutes). Delays and the timeout run on the
 * Effect `Clock`. Errors name the host, the status or network error and the attempts, never header values.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { doublingDelay } from "../../domain/backoff.ts"
import { NotifierConfigError, NotifierError } from "./Notifier.ts"

export const DEFAULT_RETRIES = 2
export const DEFAULT_RETRY_DELAY_MS = 1000
export const REQUEST_TIMEOUT_MS = 10_000
export const MAX_RETRY_AFTER_MS = 5 * 60_000

export interface HttpPostOptions {
  /** The notifier's name, for errors. */
  readonly notifier: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly retries: number
  readonly retryDelayMs: number
}

/** `config[key]` as an http: or https: URL, else a NotifierConfigError naming the bad value. */
export const httpUrl = (notifier: string, key: string, value: unknown): Effect.Effect<URL, NotifierConfigError> => {
  const fail = (reason: string) => Effect.fail(new NotifierConfigError({ notifier, reason }))
  if (value === undefined || value === null || value === "") return fail(`\`${key}\` is required: the http or https URL to POST to`)
  if (typeof value !== "string") return fail(`\`${key}\` must be an http or https URL, got ${JSON.stringify(value)}`)
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined) return fail(`\`${key}\` is not a valid URL: ${JSON.stringify(value)}`)
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail(`\`${key}\` must be an http or https URL, got ${url.protocol.slice(0, -1)} in ${JSON.stringify(value)}`)
  }
  return Effect.succeed(url)
}

/** `retries` (a whole number >= 0, default 2) and `retryDelayMs` (a number >= 0, default 1000); invalid values fall back. */
export const retryPolicy = (config: Readonly<Record<string, unknown>>) => {
  const { retries, retryDelayMs } = config
  return {
    retries: typeof retries === "number" && Number.isInteger(retries) && retries >= 0 ? retries : DEFAULT_RETRIES,
    retryDelayMs: typeof retryDelayMs === "number" && Number.isFinite(retryDelayMs) && retryDelayMs >= 0
      ? retryDelayMs
      : DEFAULT_RETRY_DELAY_MS
  }
}

/** The string-valued entries of a `headers` object; anything else is ignored. */
export const stringHeaders = (value: unknown): Record<string, string> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
    : {}

type Outcome =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "Failed"; readonly reason: string; readonly retry: boolean; readonly waitMs?: number }

const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "name resolution failed",
  EAI_AGAIN: "name resolution failed",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "connect timed out",
  UND_ERR_SOCKET: "socket closed"
}

const networkFailure = (error: unknown): Outcome => {
  if (Cause.isTimeoutError(error)) return { _tag: "Failed", reason: `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`, retry: true }
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  const known = code !== undefined ? NETWORK_ERRORS[code] : undefined
  const text = known ?? (error instanceof Error ? error.message : String(error))
  // An invalid argument (say, a header value undici refuses) fails the same way every time.
  return { _tag: "Failed", reason: code !== undefined ? `${text} (${code})` : text, retry: code !== "UND_ERR_INVALID_ARG" }
}

/** A `Retry-After` value in milliseconds from `now`: delta seconds or an HTTP date, capped; undefined when unreadable. */
export const retryAfterMs = (header: string | ReadonlyArray<string> | undefined, now: number): number | undefined => {
  const value = (typeof header === "string" ? header : header?.[0])?.trim()
  if (value === undefined) return undefined
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : /[a-z]/i.test(value) ? Date.parse(value) - now : Number.NaN
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS)
}

/** A poster: `post(body)` sends `body` as JSON to `options.url`, retrying per the policy above. */
export const makeJsonPoster = (options: HttpPostOptions) => {
  const headers = {
    ...Object.fromEntries(Object.entries(options.headers).filter(([key]) => key.toLowerCase() !== "content-type")),
    "content-type": "application/json"
  }

  const attempt = (payload: string): Effect.Effect<Outcome> =>
    Effect.tryPromise({
      try: async (signal) => {
        // undici (half a megabyte) loads with the first post, not with this module: every config check loads it, and
        // `orch spawn` without a supervisor makes one.
        // Bundled as an ES module chunk, a CommonJS library's exports are its default export; run from source, its names.
        const undici = await import("undici")
        const request = undici.request ?? undici.default.request
        const response = await request(options.url, { method: "POST", headers, body: payload, signal })
        await response.body.dump()
        return response
      },
      catch: (error) => error
    }).pipe(
      Effect.timeout(REQUEST_TIMEOUT_MS),
      Effect.flatMap(({ statusCode, headers }) =>
        Clock.currentTimeMillis.pipe(Effect.map((now): Outcome => {
          if (statusCode >= 200 && statusCode < 300) return { _tag: "Delivered" }
          const reason = `HTTP ${statusCode}`
          if (statusCode === 429) {
            const waitMs = retryAfterMs(headers["retry-after"], now)
            return waitMs === undefined ? { _tag: "Failed", reason, retry: true } : { _tag: "Failed", reason, retry: true, waitMs }
          }
          return { _tag: "Failed", reason, retry: statusCode >= 500 }
        }))
      ),
      Effect.catch((error) => Effect.succeed(networkFailure(error)))
    )

  return Effect.fn("Notifier.httpPost")(function*(body: unknown) {
    const payload = JSON.stringify(body)
    for (let attempts = 1;; attempts++) {
      const outcome = yield* attempt(payload)
      if (outcome._tag === "Delivered") return
      if (!outcome.retry || attempts > options.retries) {
        const tries = `${attempts} attempt${attempts === 1 ? "" : "s"}`
        return yield* new NotifierError({
          notifier: options.notifier,
          reason: `POST to ${options.url.host} failed: ${outcome.reason}${outcome.retry ? "" : " (not retried)"} after ${tries}`
        })
      }
      yield* Effect.sleep(outcome.waitMs ?? doublingDelay(options.retryDelayMs, attempts))
    }
  })
}
