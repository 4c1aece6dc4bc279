/**
 * What a session shows of a limit its model provider turned it away with: the reset a line names, read on this
 * machine's clock, and what the agent plugin reads off a `rate_limited` screen. Pure over explicit time.
 */
import { limitKindOf, limitLineOf, resetFromText, type Told } from "../../src/domain/rate-limit.ts"
import { type Activity, hostOf, type SessionRecord } from "../../src/domain/session.ts"
import type { AgentShape } from "../../src/plugins/agent/Agent.ts"

/** What a screen says: the agent plugin's activity and, when that is `rate_limited`, what it shows of the limit. */
export interface ScreenReading extends Told {
  readonly screen?: Activity
}

/**
 * The reset time a limit's text names, read on this machine's clock: only for sessions that run here (another
 * host's clock may be in another time zone; those wait on the backoff).
 */
export const resetIn = (record: SessionRecord, text: string | undefined, now: number): number | undefined =>
  text === undefined || hostOf(record) !== "local" ? undefined : resetFromText(text, now, -new Date(now).getTimezoneOffset())

/**
 * What a screen read as `rate_limited` shows of the limit, as the agent plugin reads it (else the last line naming a
 * limit). The reset is a time the line names, else when the retry it waits for is due (a wait is the same on any host).
 */
export const limitShown = (record: SessionRecord, agent: AgentShape, screen: string, now: number): Told => {
  const shown = agent.limitFromScreen?.(screen)
  const line = agent.limitFromScreen === undefined ? limitLineOf(screen) : shown?.line
  const kind = shown?.kind ?? (line === undefined ? undefined : limitKindOf(line))
  const resetAt = resetIn(record, line, now) ?? (shown?.retryInMs !== undefined ? now + shown.retryInMs : undefined)
  return {
    ...(line !== undefined ? { limit: line } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(shown !== undefined ? { retrying: shown.retrying } : {}),
    ...(resetAt !== undefined ? { resetAt } : {})
  }
}
