/** The queue as `orch status` shows it: each entry with its position and the budget it waits on. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { entryLine } from "../domain/queue.ts"
import { readAdmissionState, waitingReason } from "../store/admission-file.ts"
import { listQueue } from "../store/QueueStore.ts"

/** "Queued (2):" and a line per entry; nothing when the queue is empty (a queue that cannot be read is a warning). */
export const queueLines = (root: string, supervisorPid: number | undefined) =>
  listQueue(root).pipe(
    Effect.map((entries) => {
      if (entries.length === 0) return []
      const state = readAdmissionState(root)
      return [
        `Queued (${entries.length}):`,
        ...entries.map((e) => `  ${entryLine(e, waitingReason(state, supervisorPid, e))}`)
      ]
    }),
    Effect.catch((error) => Effect.as(Console.error(`orch: warning: ${error.message}`), [] as ReadonlyArray<string>))
  )
