/**
 * How a supervisor loop that fails is paced, and when a person is called. Pure, over explicit time (ms); the
 * loop guard (loop-guard.ts) sleeps on the Clock for what it answers.
 *
 * A failure waits `baseMs · 2^(n-1)` (n failures in a row), at most `maxMs`; a success resets the count. A loop
 * that fails `escalateAfter` times in a row, or `escalateInWindow` times within `windowMs`, escalates once: the
 * episode lasts until a success comes with no failure left in the window, and only then can it escalate again.
 */
import { doublingDelay } from "../src/domain/backoff.ts"
export interface LoopPolicy {
  readonly baseMs: number
  readonly maxMs: number
  readonly escalateAfter: number
  readonly windowMs: number
  readonly escalateInWindow: number
}

export const DEFAULT_LOOP_POLICY: LoopPolicy = {
  baseMs: 1_000,
  maxMs: 5 * 60_000,
  escalateAfter: 5,
  windowMs: 10 * 60_000,
  escalateInWindow: 10
}

export interface LoopHealth {
  /** Failures since the last success. */
  readonly inARow: number
  /** When the failures within the window happened, oldest first. */
  readonly failures: ReadonlyArray<number>
  /** When the current episode escalated; none while no episode is on. */
  readonly escalatedAt?: number
}

export const HEALTHY: LoopHealth = { inARow: 0, failures: [] }

const within = (failures: ReadonlyArray<number>, now: number, policy: LoopPolicy) => failures.filter((at) => now - at < policy.windowMs)

export interface AfterFailure {
  readonly health: LoopHealth
  /** How long to wait before the next try. */
  readonly delayMs: number
  /** Whether this failure begins an episode a person must hear of. */
  readonly escalate: boolean
}

export const afterFailure = (health: LoopHealth, now: number, policy: LoopPolicy = DEFAULT_LOOP_POLICY): AfterFailure => {
  const inARow = health.inARow + 1
  const failures = [...within(health.failures, now, policy), now]
  const escalate = health.escalatedAt === undefined && (inARow >= policy.escalateAfter || failures.length >= policy.escalateInWindow)
  const escalatedAt = escalate ? now : health.escalatedAt
  return {
    health: { inARow, failures, ...(escalatedAt !== undefined ? { escalatedAt } : {}) },
    delayMs: doublingDelay(policy.baseMs, inARow, policy.maxMs),
    escalate
  }
}

export interface AfterSuccess {
  readonly health: LoopHealth
  /** Whether this success ends an escalated episode. */
  readonly recovered: boolean
}

export const afterSuccess = (health: LoopHealth, now: number, policy: LoopPolicy = DEFAULT_LOOP_POLICY): AfterSuccess => {
  const failures = within(health.failures, now, policy)
  const over = health.escalatedAt !== undefined && failures.length === 0
  const escalatedAt = over ? undefined : health.escalatedAt
  return { health: { inARow: 0, failures, ...(escalatedAt !== undefined ? { escalatedAt } : {}) }, recovered: over }
}
