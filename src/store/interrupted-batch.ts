/**
 * The sentence an interrupted `orch batch-spawn` says, from what is on disk now: the events appended since it asked
 * (src/store/events-after.ts) and the queue file (queue-entries-now.ts), decided in src/domain/batch-fate.ts. Plain
 * `node:fs`, for the fast path and the full CLI alike. A supervisor acts on the batch's hang-up a moment later, so
 * callers read it again until it stays the same (BATCH_SETTLE_READS in a row, BATCH_SETTLE_MS at most).
 */
import { batchFate, interruptedBatchSentence } from "../domain/batch-fate.ts"
import { eventsAfter } from "./events-after.ts"
import { queueEntriesNow } from "./queue-entries-now.ts"

export interface InterruptedBatch {
  /** The data directory (its queue.json) and the event log. */
  readonly root: string
  readonly eventsPath: string
  /** The event log's end when the batch was asked for. */
  readonly from: number
  /** The batch's issues, as orch keeps their ids (normalIssueId). */
  readonly issues: ReadonlyArray<string>
  /** A supervisor ran it (what waits then starts on its own). */
  readonly supervised: boolean
  /** It was asked for (sent, or begun here). */
  readonly taken: boolean
}

/** How often, and for how long at most, a caller reads again until the sentence stays the same. */
export const BATCH_SETTLE_POLL_MS = 100
export const BATCH_SETTLE_READS = 3
export const BATCH_SETTLE_MS = 5_000

export const interruptedBatchNow = (batch: InterruptedBatch): string => {
  if (!batch.taken) return interruptedBatchSentence({ started: [], queued: [], neither: [] }, batch.supervised, false)
  const entries = queueEntriesNow(batch.root)
  if (entries === undefined) return "batch-spawn interrupted; `orch status` and `orch queue ls` show what started and what waits"
  return interruptedBatchSentence(batchFate(batch.issues, eventsAfter(batch.eventsPath, batch.from), entries), batch.supervised, true)
}
