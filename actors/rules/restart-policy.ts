/**
 * When a crashed session actor starts again: after an exponential back-off (RESTART_BASE_MS, doubling, at most
 * RESTART_MAX_MS), unless it has crashed more than MAX_RESTARTS times within RESTART_WINDOW_MS: then orch stops
 * restarting it and calls a person (OTP-style intensity). Pure over explicit time; the supervisor sleeps on the
 * Clock for the delay.
 */
import { doublingDelay } from "../../src/domain/backoff.ts"
export const MAX_RESTARTS = 5
export const RESTART_WINDOW_MS = 60_000
export const RESTART_BASE_MS = 1_000
export const RESTART_MAX_MS = 30_000

export type RestartDecision =
  /** `crashes`: the crashes within the window, this one included, to pass to the next decision. */
  | { readonly _tag: "Restart"; readonly delayMs: number; readonly crashes: ReadonlyArray<number> }
  | { readonly _tag: "Escalate"; readonly reason: string }

/** `crashes`: when (ms) the actor crashed before, as the last decision left them; `nowMs`: this crash. */
export const restartDecision = (crashes: ReadonlyArray<number>, nowMs: number): RestartDecision => {
  const recent = [...crashes.filter((at) => nowMs - at <= RESTART_WINDOW_MS), nowMs]
  if (recent.length > MAX_RESTARTS) return { _tag: "Escalate", reason: `its actor crashed ${recent.length} times within ${RESTART_WINDOW_MS / 1000} s` }
  return { _tag: "Restart", delayMs: doublingDelay(RESTART_BASE_MS, recent.length, RESTART_MAX_MS), crashes: recent }
}
