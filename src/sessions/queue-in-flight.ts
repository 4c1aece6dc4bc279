/**
 * The queue entries this process is starting now. Recovery (queue-recovery.ts) leaves them alone even though they
 * name a live process: an entry is orphaned when the process that marked it is gone, or is this one and is not
 * starting it any more.
 */
import * as Effect from "effect/Effect"
import type { QueueEntry } from "../domain/queue.ts"
import { isOwnerAlive, thisProcess } from "../store/process-liveness.ts"

export interface EntriesInFlight {
  /** Runs `start`, the start of entry `entryId`, with the entry in flight until it ends. */
  readonly starting: <A, E, R>(entryId: string, start: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Whether an entry marked as being started was left so by a process that is gone (or by this one, not starting it now). */
  readonly orphaned: (entry: QueueEntry) => boolean
}

export const makeEntriesInFlight = (): EntriesInFlight => {
  const inFlight = new Set<string>()
  return {
    starting: (entryId, start) =>
      Effect.suspend(() => {
        inFlight.add(entryId)
        return start.pipe(Effect.ensuring(Effect.sync(() => inFlight.delete(entryId))))
      }),
    orphaned: (entry) => {
      const by = entry.admitting?.by
      return by !== undefined && (by === thisProcess() ? !inFlight.has(entry.id) : !isOwnerAlive(by))
    }
  }
}
