/**
 * How long the repohost poll waits before its next round: `pollIntervalMs` while the rate-limit budget is
 * healthy, longer as it drains, and until the reset once it is nearly spent or the host asked us to back off.
 * Pure; the supervisor sleeps on the Clock for what it returns.
 */
import type { RateBudget } from "../../src/domain/rate-budget.ts"

/** Below this share of the budget, polling slows down in proportion. */
export const SLOW_DOWN_BELOW = 0.5
/** At or below this many requests left, polling waits for the reset. */
export const RESERVE = 100

export const nextPollDelay = (baseMs: number, budgets: ReadonlyArray<RateBudget>, nowMs: number): number => {
  let delay = baseMs
  for (const budget of budgets) {
    if (budget.blockedUntil !== undefined && budget.blockedUntil > nowMs) delay = Math.max(delay, budget.blockedUntil - nowMs)
    if (budget.limit <= 0) continue
    if (budget.remaining <= RESERVE) {
      delay = Math.max(delay, budget.reset * 1000 - nowMs)
      continue
    }
    const share = budget.remaining / budget.limit
    if (share < SLOW_DOWN_BELOW) delay = Math.max(delay, Math.round(baseMs * (SLOW_DOWN_BELOW / share)))
  }
  return delay
}
