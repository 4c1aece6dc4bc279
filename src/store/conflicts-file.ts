/**
 * The conflicts the supervisor predicts now (actors/conflict-watch.ts), `<dataDir>/conflicts.json`, written whole
 * (temp file + rename) by the supervisor and read by `orch status` and the dashboard, with or without a supervisor.
 *
 * `pending` holds the events of the last change while they are written: the file is written with them first, then
 * the events are appended (and the reaction run), then the file again without them. A crash in between leaves
 * `pending`, and the next round appends what the log does not have yet after `logOffset` (where it ended before), so
 * a change is never lost and never told twice. A missing file holds nothing; one that does not decode is an error,
 * with what to do.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ConflictPrediction } from "../domain/conflict.ts"
import type { StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"
import { readJsonFile } from "./json-file.ts"
import { storePaths } from "./paths.ts"

export const ClearedConflict = Schema.Struct({
  prediction: ConflictPrediction,
  reason: Schema.Literals(["ended", "resolved"])
})

export const PendingConflictEvents = Schema.Struct({
  /** The event log's size before these events. */
  logOffset: Schema.Int,
  predicted: Schema.Array(ConflictPrediction),
  cleared: Schema.Array(ClearedConflict)
})
export type PendingConflictEvents = typeof PendingConflictEvents.Type

export const ConflictsFile = Schema.Struct({
  /** When the predictions last changed (ISO). */
  updatedAt: Schema.String,
  predictions: Schema.Array(ConflictPrediction),
  pending: Schema.optionalKey(PendingConflictEvents)
})
export type ConflictsFile = typeof ConflictsFile.Type

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(ConflictsFile))
export const conflictsPath = (root: string) => storePaths(root).conflicts

export const noConflicts: ConflictsFile = { updatedAt: new Date(0).toISOString(), predictions: [] }

export const readConflicts = (root: string): Effect.Effect<ConflictsFile, StoreError> =>
  readJsonFile(conflictsPath(root), decode, {
    missing: noConflicts,
    whenUnreadable: "move it away (the running supervisor predicts the conflicts again within seconds)"
  })

export const writeConflicts = (root: string, file: ConflictsFile): Effect.Effect<void, StoreError> =>
  writeFileAtomic(conflictsPath(root), `${JSON.stringify(file, null, 2)}\n`)
