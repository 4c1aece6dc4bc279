/**
 * What the supervisor's last admission round left waiting, and on what: `<dataDir>/admission.json`, written
 * atomically by the supervisor, read by `orch status` and `orch queue ls` (decoded; a file that does not decode
 * tells nothing).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { QueueEntry } from "../domain/queue.ts"
import type { StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"
import { isOwnerAlive } from "./process-liveness.ts"

export const AdmissionState = Schema.Struct({
  /** The supervisor that wrote it: only the running one's word counts. */
  pid: Schema.Int,
  at: Schema.String,
  /** Entry id → the budget it waits on. */
  waiting: Schema.Record(Schema.String, Schema.String)
})
export type AdmissionState = typeof AdmissionState.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(AdmissionState))
export const admissionPath = (root: string) => join(root, "admission.json")

export const readAdmissionState = (root: string): AdmissionState | undefined => {
  try {
    const decoded = decode(readFileSync(admissionPath(root), "utf8"))
    return decoded._tag === "Some" ? decoded.value : undefined
  } catch {
    return undefined
  }
}

export const writeAdmissionState = (root: string, state: AdmissionState): Effect.Effect<void, StoreError> =>
  writeFileAtomic(admissionPath(root), `${JSON.stringify(state)}\n`)

/** Without a running supervisor, nothing is admitted: the reason every entry gives. */
export const NO_SUPERVISOR_REASON = "waiting for a supervisor: `orch start` admits queued work"

/**
 * The reason shown for an entry: being started (by a process that runs, or cut short by one that died), else the
 * running supervisor's word (`supervisorPid`), else that none runs.
 */
export const waitingReason = (state: AdmissionState | undefined, supervisorPid: number | undefined, entry: QueueEntry): string => {
  if (entry.admitting !== undefined) {
    return isOwnerAlive(entry.admitting.by)
      ? `being started as ${entry.admitting.sessionId}`
      : `its start as ${entry.admitting.sessionId} was cut short (its orch process is gone); the next orch start or session command finishes or undoes it`
  }
  return supervisorPid === undefined
    ? NO_SUPERVISOR_REASON
    : state?.pid === supervisorPid
    ? state.waiting[entry.id] ?? "waiting for the next admission round"
    : "waiting for the next admission round"
}
