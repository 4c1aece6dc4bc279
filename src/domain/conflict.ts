/**
 * Predicted conflicts between the live sessions' branches of a project, and between each of them and the default
 * branch (actors/conflict-watch.ts computes them; `<dataDir>/conflicts.json` keeps the current ones): `conflict` when
 * `git merge-tree` finds a textual conflict, `overlap` when both sides changed the same files and still merge cleanly.
 */
import * as Schema from "effect/Schema"

export const ConflictKind = Schema.Literals(["conflict", "overlap"])
export type ConflictKind = typeof ConflictKind.Type

/** One side of a pair: a session's branch (with `sessionId`), or the project's default branch (without). */
export const ConflictSide = Schema.Struct({
  sessionId: Schema.optionalKey(Schema.String),
  branch: Schema.String,
  head: Schema.String
})
export type ConflictSide = typeof ConflictSide.Type

export const ConflictPrediction = Schema.Struct({
  projectId: Schema.String,
  /** Always a session. */
  a: ConflictSide,
  /** Another session of the project (its id after `a`'s), or the default branch. */
  b: ConflictSide,
  kind: ConflictKind,
  /** conflict: the files git could not merge; overlap: the files both sides changed. */
  files: Schema.Array(Schema.String)
})
export type ConflictPrediction = typeof ConflictPrediction.Type
