/**
 * How a supervisor loop that fails is paced, and when a person is called. Pure, over explicit time (ms); the
 * loop guard (loop-guard.ts) sleeps on the Clock for what it answers.
 *
 * A failure waits `baseMs · 2^(n-1)` (n failures in a row), at most `maxMs`; a success resets the count. A loop
 * that fails `escalateAfter` times in a row, or `escalateInWindow` times within `windowMs`, escalates once: the
 * episode lasts until a success comes with no failure left in the window, and only then can it escalate again.
 *
 * The log is told of a failing loop without a flood (`tellFailure`): a line when it starts failing and each time
 * the reason changes; while the same reason lasts, again after the 2nd, 4th, 8th … failure in a row (then every
 * 64th); and a line when it works again.
 */
import { doublingDelay, logsFailure } from "../../src/domain/backoff.ts"
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

/** What the log says of a failure: a new streak, a new reason, the same reason again, or nothing. */
export type FailureTelling = "first" | "changed" | "still" | "quiet"

/** Failure number `inARow` of a streak, with `reason`; `told` is the reason the log last gave for this streak. */
export const tellFailure = (told: string | undefined, reason: string, inARow: number): FailureTelling =>
  told === undefined || inARow <= 1 ? "first" : reason !== told ? "changed" : logsFailure(inARow) ? "still" : "quiet"
