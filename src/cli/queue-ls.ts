/**
 * What `orch queue ls [--json]` does, from the files alone, as `orch status` reads the queue: `queue.json`, each entry
 * with what it waits on as the running supervisor's last admission round wrote it (`admission.json`), whether a
 * supervisor answers (its light ping). The supervisor's own answer is the same: it keeps what its round wrote. A
 * supervisor that holds its socket but does not answer is said, and its last round's reasons shown.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Host } from "../config/host.ts"
import { entryLine } from "../domain/queue.ts"
import { pingResult, stoppingMessage, unansweredMessage } from "../ipc/raw-ping.ts"
import { readAdmissionState, waitingReason } from "../store/admission-file.ts"
import { dataDir } from "../store/paths.ts"
import { listQueue } from "../store/QueueStore.ts"
import { readSupervisorFile, socketPath, stoppingSupervisor } from "../store/supervisor-file.ts"

export const runQueueLs = Effect.fn("cli.queue.ls")(function*({ json }: { readonly json: boolean }) {
  const root = dataDir(yield* Host)
  const ping = yield* Effect.promise(() => pingResult(socketPath(root)))
  const silent = ping._tag === "Silent" ? readSupervisorFile(root)?.pid : undefined
  if (ping._tag === "Silent") yield* Console.error(`orch: warning: ${unansweredMessage(silent, socketPath(root))}`)
  const stopping = ping._tag === "Absent" ? stoppingSupervisor(root) : undefined
  if (stopping !== undefined) yield* Console.error(`orch: warning: ${stoppingMessage(stopping.pid)}`)
  const supervisorPid = ping._tag === "Answered" ? ping.answer.pid : silent
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
