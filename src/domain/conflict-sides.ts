/**
 * Reading a predicted conflict (conflict.ts) from one side or as a pair, with no Schema: the dashboard's page
 * bundle uses these too.
 */
import type { ConflictPrediction, ConflictSide } from "./conflict.ts"

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
