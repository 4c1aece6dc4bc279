/** Predicted conflicts in `orch status`: a line per pair, and each session's `conflicts` in `--json`. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { conflictsOf, sideName } from "../domain/conflict-sides.ts"
import { type ConflictPrediction } from "../domain/conflict.ts"
import { readConflicts } from "../store/conflicts-file.ts"

/** The predictions whose sessions are all among `live` (a pair with an ended session is history). */
export const livePredictions = (predictions: ReadonlyArray<ConflictPrediction>, live: ReadonlySet<string>): Array<ConflictPrediction> =>
  predictions.filter((p) => [p.a.sessionId, p.b.sessionId].every((id) => id === undefined || live.has(id)))

/** `conflict predicted: app-1 ↔ app-2 in a.ts, b.ts` / `overlap: app-1 ↔ main in README.md (merges cleanly)`; conflicts first. */
export const conflictLines = (predictions: ReadonlyArray<ConflictPrediction>): Array<string> =>
  [...predictions.filter((p) => p.kind === "conflict"), ...predictions.filter((p) => p.kind === "overlap")].map((p) =>
    p.kind === "conflict"
      ? `conflict predicted: ${sideName(p.a)} ↔ ${sideName(p.b)} in ${p.files.join(", ")}`
      : `overlap: ${sideName(p.a)} ↔ ${sideName(p.b)} in ${p.files.join(", ")} (merges cleanly)`
  )

/** A `--json` row with its `conflicts` (only when it has some). */
export const withConflicts = <R extends { readonly sessionId: string }>(
  row: R,
  predictions: ReadonlyArray<ConflictPrediction>
): R & { readonly conflicts?: ReturnType<typeof conflictsOf> } => {
  const conflicts = conflictsOf(predictions, row.sessionId)
  return conflicts.length > 0 ? { ...row, conflicts } : row
}

/**
 * What `orch status` shows of conflicts.json: the lines, and a `--json` row with its conflicts, for the pairs whose
 * sessions are all `live`. A file that cannot be read is a warning, and shows nothing.
 */
export const statusConflicts = (root: string, live: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const read = yield* Effect.result(readConflicts(root))
    if (read._tag === "Failure") yield* Console.error(`orch: warning: ${read.failure.message}`)
    const predictions = read._tag === "Success" ? livePredictions(read.success.predictions, live) : []
    return {
      lines: conflictLines(predictions),
      row: <R extends { readonly sessionId: string }>(row: R) => withConflicts(row, predictions)
    }
  })
