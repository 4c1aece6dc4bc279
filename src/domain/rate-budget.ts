/** A repohost's rate-limit budget as orch last saw it, and the file `orch status` reads it from. */
import * as Schema from "effect/Schema"

export const RateBudget = Schema.Struct({
  limit: Schema.Number,
  remaining: Schema.Number,
  /** When the budget is whole again, in Unix seconds (as `x-ratelimit-reset` says). */
  reset: Schema.Number,
  /** `core` (REST) or `graphql`. */
  resource: Schema.optionalKey(Schema.String),
  /** Unix ms before which no request is made (Retry-After, secondary limits, server errors). */
  blockedUntil: Schema.optionalKey(Schema.Number)
})
export type RateBudget = typeof RateBudget.Type

/** `repohost.json` in orch's home: each project's tightest budget, written by the supervisor after each poll. */
export const RepohostBudgets = Schema.Struct({
  checkedAt: Schema.String,
  budgets: Schema.Record(Schema.String, RateBudget)
})
export type RepohostBudgets = typeof RepohostBudgets.Type
