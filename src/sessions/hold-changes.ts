/**
 * The holds a spawn's failure makes and a success lifts (src/domain/holds.ts decides; src/store/holds-file.ts keeps
 * them), each told: `queue.held` when a hold is new, `queue.resumed` when one ends.
 */
import * as Effect from "effect/Effect"
import { type Hold, holdAfterFailure, liftHold } from "../domain/holds.ts"
import type { EventLogShape } from "../store/EventLog.ts"
import { changeHolds, readHolds } from "../store/holds-file.ts"

/** A hold made or kept by a failed spawn; `fresh` when people have not been told of it yet. */
export interface HoldNews {
  readonly hold: Hold
  readonly fresh: boolean
}

/** Records a failure in `scope` (a hold made or put off), with `queue.held` when it is new. */
export const recordHold = Effect.fnUntraced(function*(
  root: string,
  events: EventLogShape,
  scope: { readonly project: string; readonly host?: string | undefined },
  reason: string
) {
  const news = yield* changeHolds(root, (holds, now) => {
    const next = holdAfterFailure(holds, scope, reason, now)
    return [next.holds, { hold: next.hold, fresh: next.fresh }] as const
  })
  if (news.fresh) {
    yield* events.append({
      type: "queue.held",
      projectId: scope.project,
      message: `${scope.host !== undefined ? `host ${scope.host} is left out for ${scope.project}` : `${scope.project} is held`}: ${reason}`,
      data: { ...(scope.host !== undefined ? { host: scope.host } : {}), reason, retryAt: news.hold.retryAt }
    })
  }
  return news satisfies HoldNews
})

/**
 * Ends holds of `project`, with `queue.resumed` each: those a spawn that succeeded on `host` disproves (that host's,
 * and the project's own), or, with no host, all of them (its config changed: what failed may be fixed).
 */
export const liftHolds = Effect.fnUntraced(function*(root: string, events: EventLogShape, project: string, host: string | undefined, why: string) {
  const lifts = (hold: Hold) => hold.project === project && (host === undefined || hold.host === undefined || hold.host === host)
  // Most spawns find nothing to lift: the file is read without its lock first, and the lock taken only to change it.
  if (!(yield* readHolds(root)).some(lifts)) return 0
  const lifted = yield* changeHolds(root, (holds) => {
    const gone = holds.filter(lifts)
    return [gone.length > 0 ? gone.reduce((left, hold) => liftHold(left, hold), holds) : undefined, gone] as const
  })
  for (const hold of lifted) {
    yield* events.append({
      type: "queue.resumed",
      projectId: project,
      message: `${hold.host !== undefined ? `host ${hold.host} takes ${project}'s sessions again` : `${project} starts sessions again`}: ${why}`,
      data: hold.host !== undefined ? { host: hold.host } : {}
    })
  }
  return lifted.length
})
