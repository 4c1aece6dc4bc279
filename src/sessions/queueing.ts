/**
 * The queue's procedures: `orch queue add|ls|rm` (queue-commands.ts), and admission (admission-rounds.ts: the
 * supervisor's, starting what the rule admits). Events: `queue.added`, `queue.admitted`, `queue.dropped`,
 * `queue.held`, `queue.resumed` (hold-changes.ts).
 */
import { makeAdmissionRounds } from "./admission-rounds.ts"
import { makeQueueCommands } from "./queue-commands.ts"
import { makeEntriesInFlight } from "./queue-in-flight.ts"
import type { QueueingDeps } from "./queueing-deps.ts"

export { type Candidate } from "./admission-rounds.ts"
export { EntryTaken } from "./claimed-start.ts"
export { type HoldNews, liftHolds, recordHold } from "./hold-changes.ts"
export type { QueueingDeps } from "./queueing-deps.ts"

export const makeQueueing = (deps: QueueingDeps) => {
  const inFlight = deps.inFlight ?? makeEntriesInFlight()
  return { ...makeQueueCommands(deps), ...makeAdmissionRounds(deps, inFlight), orphaned: inFlight.orphaned }
}
