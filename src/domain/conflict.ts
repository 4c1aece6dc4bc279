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

/** The pair, whatever its heads: `<project>:<a>|<b>` (the default branch as `:<branch>`). */
export const pairOf = (p: Pick<ConflictPrediction, "projectId" | "a" | "b">): string =>
  `${p.projectId}:${p.a.sessionId ?? `:${p.a.branch}`}|${p.b.sessionId ?? `:${p.b.branch}`}`

/**
 * What a person or an agent is told about once: the pair, its kind and files, and the sessions' heads. The default
 * branch's head is left out: the default branch moving on (another PR merged) does not announce again a conflict the
 * session already has with it, unless its files change.
 */
export const announcementOf = (p: ConflictPrediction): string =>
  [pairOf(p), p.kind, p.files.join(","), p.a.head, p.b.sessionId !== undefined ? p.b.head : ""].join(" ")

/** The other side of a prediction, seen from `sessionId`: a session's id or `<branch>` (the default branch). */
export const otherSide = (p: ConflictPrediction, sessionId: string): ConflictSide => (p.a.sessionId === sessionId ? p.b : p.a)

/** What a side is called for people: its session id, or the default branch's name. */
export const sideName = (side: ConflictSide): string => side.sessionId ?? side.branch

/** The predictions that name `sessionId`, as `{ with, kind, files }` from its side. */
export const conflictsOf = (predictions: ReadonlyArray<ConflictPrediction>, sessionId: string) =>
  predictions
    .filter((p) => p.a.sessionId === sessionId || p.b.sessionId === sessionId)
    .map((p) => {
      const other = otherSide(p, sessionId)
      return { with: sideName(other), ...(other.sessionId === undefined ? { defaultBranch: true } : {}), kind: p.kind, files: p.files }
    })
