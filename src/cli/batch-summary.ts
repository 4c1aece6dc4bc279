/** What `orch batch-spawn` says when it is done: the counts, and in plain words why anything waits instead of starting. */
import type { BatchOutcome } from "../sessions/SessionOps.ts"

const WHEN_QUEUED = "they start on their own once that allows, while orch's supervisor runs (`orch start`); `orch queue ls` shows them and why they wait"

export const batchSummary = (outcomes: ReadonlyArray<BatchOutcome>): ReadonlyArray<string> => {
  const count = (tag: BatchOutcome["_tag"]) => outcomes.filter((o) => o._tag === tag).length
  const queued = outcomes.flatMap((o) => (o._tag === "Queued" ? [o] : []))
  const counts = `created ${count("Created")}, skipped ${count("Skipped")}, failed ${count("Failed")}${queued.length > 0 ? `, queued ${queued.length}` : ""}`
  if (queued.length === 0) return [counts]
  const reasons = [...new Set(queued.map((o) => o.reason))]
  const why = reasons.length === 1 ? reasons[0]! : `${reasons[0]!}, and other reasons`
  const what = count("Created") === 0
    ? `Nothing started now: ${queued.length === 1 ? "the issue waits" : `all ${queued.length} wait`} in the queue (${why}); ${WHEN_QUEUED}.`
    : `${queued.length} of them did not start now and wait in the queue (${why}); ${WHEN_QUEUED}.`
  return [counts, what]
}
