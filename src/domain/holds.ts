/**
 * Holds: where a project's sessions cannot be started now, learnt from a spawn that failed there (src/sessions/
 * failure-owner.ts says whose failure it was). A hold on a host (`local` is this machine) leaves that host out of the
 * project's placement; a hold without a host holds all of the project's queued work. Either lasts until `retryAt`,
 * backing off 1, 2, 4 … 30 minutes while it keeps failing, and ends when a spawn there succeeds (or a host's check
 * passes). Pure: the store keeps them in holds.json (src/store/holds-file.ts).
 */
import * as Schema from "effect/Schema"

export const Hold = Schema.Struct({
  project: Schema.String,
  /** The host left out for the project; absent: the project itself is held (its config cannot start a session). */
  host: Schema.optionalKey(Schema.String),
  reason: Schema.String,
  since: Schema.String,
  /** Failures in a row that made or kept it. */
  failures: Schema.Int,
  /** When it is tried again: a spawn there may go ahead from then on (and the hold comes back if it fails). */
  retryAt: Schema.String
})
export type Hold = typeof Hold.Type

export const HoldsFile = Schema.Struct({ holds: Schema.Array(Hold) })
export type HoldsFile = typeof HoldsFile.Type

export const HOLD_FIRST_MS = 60_000
export const HOLD_MAX_MS = 30 * 60_000

/** What a hold is on: a project, on one host or on every one. */
export interface HoldScope {
  readonly project: string
  readonly host?: string | undefined
}

const sameScope = (hold: Hold, scope: HoldScope) => hold.project === scope.project && hold.host === scope.host

/** The delay before the n-th retry (n ≥ 1): 1 minute doubling, at most 30. */
export const holdDelay = (failures: number): number => Math.min(HOLD_MAX_MS, HOLD_FIRST_MS * 2 ** Math.max(0, failures - 1))

/**
 * The holds after a failure in `scope` at `now`: a new hold (`fresh`: people are told), or the existing one kept.
 * A failure of a retry (its time had come) counts and puts the next retry off further; one while the hold is still in
 * force (spawns that were on their way together) only updates the reason.
 */
export const holdAfterFailure = (
  holds: ReadonlyArray<Hold>,
  scope: HoldScope,
  reason: string,
  now: number
): { readonly holds: ReadonlyArray<Hold>; readonly hold: Hold; readonly fresh: boolean } => {
  const existing = holds.find((hold) => sameScope(hold, scope))
  if (existing !== undefined && Date.parse(existing.retryAt) > now) {
    const hold = { ...existing, reason }
    return { holds: holds.map((h) => (h === existing ? hold : h)), hold, fresh: false }
  }
  const failures = (existing?.failures ?? 0) + 1
  const hold: Hold = {
    project: scope.project,
    ...(scope.host !== undefined ? { host: scope.host } : {}),
    reason,
    since: existing?.since ?? new Date(now).toISOString(),
    failures,
    retryAt: new Date(now + holdDelay(failures)).toISOString()
  }
  return { holds: [...holds.filter((h) => h !== existing), hold], hold, fresh: existing === undefined }
}

/** The holds without the one on `scope` (its spawn succeeded, or its check passed). */
export const liftHold = (holds: ReadonlyArray<Hold>, scope: HoldScope): ReadonlyArray<Hold> => holds.filter((hold) => !sameScope(hold, scope))

/** Holds still in force at `now` (one whose retry time came lets the next spawn try). */
export const activeHolds = (holds: ReadonlyArray<Hold>, now: number): ReadonlyArray<Hold> => holds.filter((hold) => Date.parse(hold.retryAt) > now)

/** The project's hold (on no host), if one is in force. */
export const projectHold = (holds: ReadonlyArray<Hold>, project: string, now: number): Hold | undefined =>
  activeHolds(holds, now).find((hold) => hold.project === project && hold.host === undefined)

/** The hosts left out for a project now, each with why, as placement names them. */
export const heldHosts = (holds: ReadonlyArray<Hold>, project: string, now: number, clock: (ms: number) => string): ReadonlyMap<string, string> =>
  new Map(
    activeHolds(holds, now).flatMap((hold) =>
      hold.project === project && hold.host !== undefined ? [[hold.host, `a spawn there failed (${holdSentence(hold, clock)})`] as const] : []
    )
  )

/** "cannot read origin: …; orch tries again at 12:05" (`clock` says when, as src/domain/rate-limit.ts's clockTime does). */
export const holdSentence = (hold: Hold, clock: (ms: number) => string): string => `${hold.reason}; orch tries again ${clock(Date.parse(hold.retryAt))}`
