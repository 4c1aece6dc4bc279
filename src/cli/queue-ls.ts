/**
 * What `orch queue ls [--json]` does, from the files alone, as `orch status` reads the queue: `queue.json`, each entry
 * with what it waits on as the running supervisor's last admission round wrote it (`admission.json`), whether a
 * supervisor answers (its light ping: supervisor-seen.ts). The supervisor's own answer is the same: it keeps what its round wrote. A
 * supervisor that holds its socket but does not answer is said, and its last round's reasons shown.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Host } from "../config/host.ts"
import { entryLine } from "../domain/queue.ts"
import { readAdmissionState, waitingReason } from "../store/admission-file.ts"
import { dataDir } from "../store/paths.ts"
import { listQueue } from "../store/QueueStore.ts"
import { seeSupervisor } from "./supervisor-seen.ts"

export const runQueueLs = Effect.fn("cli.queue.ls")(function*({ json }: { readonly json: boolean }) {
  const root = dataDir(yield* Host)
  const seen = yield* Effect.promise(() => seeSupervisor(root))
  if (seen.warning !== undefined) yield* Console.error(`orch: warning: ${seen.warning}`)
  const supervisorPid = seen.answer?.pid ?? seen.silent?.pid
  const entries = yield* listQueue(root)
  const state = readAdmissionState(root)
  const items = entries.map((entry) => ({ ...entry, reason: waitingReason(state, supervisorPid, entry) }))
  if (json) return yield* Console.log(JSON.stringify(items, null, 2))
  if (items.length === 0) {
    const { emptyQueueHint, projectTrackersHere } = yield* Effect.promise(() => import("./empty-hints.ts"))
    return yield* Console.log(emptyQueueHint(yield* projectTrackersHere))
  }
  for (const item of items) yield* Console.log(entryLine(item, item.reason))
})
