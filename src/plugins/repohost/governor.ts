/**
 * The repohost gateway's governor, pure over explicit time: whether a request may go now or must wait (and until
 * when), and what the governor knows after an answer: the budget of each rate-limit resource (`x-ratelimit-*`),
 * a pause the host asked for (429, or a 403 with `Retry-After` or a spent budget, until `Retry-After` or the
 * reset), a GraphQL `RATE_LIMITED`, and a run of server errors backed off exponentially. The gateway reads the
 * Clock and carries these out.
 */
import { doublingDelay } from "../../domain/backoff.ts"
import type { RateBudget } from "../../domain/rate-budget.ts"

export interface GovernorState {
  /** The last budget seen, per resource (`core` for REST, `graphql`). */
  readonly budgets: Readonly<Record<string, RateBudget>>
  /** Unix ms before which no request goes. */
  readonly pausedUntil?: number
  /** Server errors (5xx) in a row. */
  readonly serverErrors: number
}

export const FRESH: GovernorState = { budgets: {}, serverErrors: 0 }

/** Server errors in a row before the gateway backs off, and the longest back-off. */
export const SERVER_ERRORS_BEFORE_BACKOFF = 2
export const MAX_BACKOFF_MS = 5 * 60_000
/** How long to stop when the host says to stop without saying for how long. */
export const DEFAULT_PAUSE_MS = 60_000

export type Admission =
  /** `state` forgets a pause that has run out. */
  | { readonly _tag: "Send"; readonly state: GovernorState }
  | { readonly _tag: "Wait"; readonly untilMs: number; readonly waitMs: number }

export const admission = (state: GovernorState, nowMs: number): Admission => {
  if (state.pausedUntil === undefined) return { _tag: "Send", state }
  if (state.pausedUntil > nowMs) return { _tag: "Wait", untilMs: state.pausedUntil, waitMs: state.pausedUntil - nowMs }
  const { pausedUntil: _, ...rest } = state
  return { _tag: "Send", state: rest }
}

/** What the governor reads of an answer: its status and headers (names in lower case). */
export interface AnswerHead {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

const pause = (state: GovernorState, untilMs: number): GovernorState => ({ ...state, pausedUntil: Math.max(state.pausedUntil ?? 0, untilMs) })

const finite = (value: string | undefined): number | undefined => {
  const n = value === undefined || value.trim() === "" ? Number.NaN : Number(value)
  return Number.isFinite(n) ? n : undefined
}

/** `Retry-After` as the Unix ms it names: seconds from now, or an HTTP date. */
export const retryAfterUntil = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined
  const seconds = finite(value)
  if (seconds !== undefined) return seconds > 0 ? nowMs + seconds * 1000 : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : date
}

export const afterAnswer = (state: GovernorState, answer: AnswerHead, nowMs: number): GovernorState => {
  const { status, headers } = answer
  const limit = finite(headers["x-ratelimit-limit"])
  const remaining = finite(headers["x-ratelimit-remaining"])
  const reset = finite(headers["x-ratelimit-reset"]) ?? 0
  const resource = headers["x-ratelimit-resource"] ?? "core"
  let next: GovernorState = limit !== undefined && remaining !== undefined
    ? { ...state, budgets: { ...state.budgets, [resource]: { limit, remaining, reset, resource } } }
    : state
  if (status === 429 || (status === 403 && (headers["retry-after"] !== undefined || remaining === 0))) {
    next = pause(next, retryAfterUntil(headers["retry-after"], nowMs) ?? (reset > 0 ? reset * 1000 : nowMs + DEFAULT_PAUSE_MS))
  }
  if (status < 500) return { ...next, serverErrors: 0 }
  // A storm of server errors: stop asking for a while, longer each time, instead of adding to the storm.
  const serverErrors = next.serverErrors + 1
  next = { ...next, serverErrors }
  return serverErrors < SERVER_ERRORS_BEFORE_BACKOFF
    ? next
    : pause(next, nowMs + doublingDelay(1000, serverErrors - SERVER_ERRORS_BEFORE_BACKOFF + 1, MAX_BACKOFF_MS))
}

/** A GraphQL answer said RATE_LIMITED (its points are spent): no request until the GraphQL budget resets. */
export const afterRateLimited = (state: GovernorState, nowMs: number): GovernorState => {
  const reset = state.budgets.graphql?.reset ?? 0
  return pause(state, reset > 0 ? reset * 1000 : nowMs + DEFAULT_PAUSE_MS)
}

/** The tightest budget (least share left) of the resources seen, with the pause when there is one. */
export const tightestBudget = (state: GovernorState): RateBudget | undefined => {
  const tightest = Object.values(state.budgets).sort((a, b) => a.remaining / Math.max(1, a.limit) - b.remaining / Math.max(1, b.limit))[0]
  if (state.pausedUntil === undefined) return tightest
  return { ...(tightest ?? { limit: 0, remaining: 0, reset: 0 }), blockedUntil: state.pausedUntil }
}
