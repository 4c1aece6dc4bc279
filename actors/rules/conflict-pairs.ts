/**
 * Conflict prediction, the pure part: from a project's branch heads (its live sessions' and the default branch's)
 * and what was computed before (keyed by heads), which git reads a round still needs, and what they predict.
 *
 * A session's `own` files are what its commits changed since it parted from the default branch, `base` what the
 * default branch changed since then (one `git log --left-right` per session and default head; it names the branch's
 * commits too, so a branch built on another's is not compared with it). Two sides can conflict
 * textually only where they changed a file in common, so a merge (`git merge-tree`) is run only for those pairs, and
 * once per pair of heads: the cost follows the pushes, not the square of the sessions. A shared file that merges
 * cleanly is an overlap, the weaker warning.
 */
import { announcementOf, pairOf } from "../../src/domain/conflict-sides.ts"
import type { ConflictPrediction, ConflictSide } from "../../src/domain/conflict.ts"

export interface SessionHead {
  readonly sessionId: string
  readonly branch: string
  readonly head: string
}

export interface ProjectHeads {
  readonly projectId: string
  readonly defaultBranch: { readonly branch: string; readonly head: string }
  /** The live sessions whose branch was found, in any order. */
  readonly sessions: ReadonlyArray<SessionHead>
}

/** What a session's branch (`own`) and the default branch (`base`) changed since they parted. */
export interface SideFiles {
  readonly own: ReadonlyArray<string>
  readonly base: ReadonlyArray<string>
  /** The branch's own commits since it parted (absent: not read): a session whose head is among them is built on. */
  readonly commits?: ReadonlyArray<string>
}

/** A merge's outcome: the files git could not merge (none: the two merge cleanly). */
export interface MergeOutcome {
  readonly conflicted: ReadonlyArray<string>
}

export interface ConflictCache {
  /** By sidesKey(default head, session head). */
  readonly sides: ReadonlyMap<string, SideFiles>
  /** By mergeKey(head, head). */
  readonly merges: ReadonlyMap<string, MergeOutcome>
}

export const emptyCache: ConflictCache = { sides: new Map(), merges: new Map() }

export const sidesKey = (defaultHead: string, head: string): string => `${defaultHead}...${head}`
export const mergeKey = (ours: string, theirs: string): string => `${ours} ${theirs}`

/** A pair worth a merge: both sides changed `shared`. `b` without a session is the default branch. */
export interface Candidate {
  readonly a: SessionHead
  readonly b: ConflictSide
  readonly shared: ReadonlyArray<string>
  readonly key: string
}

const intersect = (left: ReadonlyArray<string>, right: ReadonlyArray<string>): Array<string> => {
  const set = new Set(right)
  return [...new Set(left)].filter((file) => set.has(file)).sort()
}

const bySession = (heads: ProjectHeads) => [...heads.sessions].sort((x, y) => (x.sessionId < y.sessionId ? -1 : x.sessionId > y.sessionId ? 1 : 0))

/** Whether `head` is one of the branch's own commits: the branch is built on it. */
const builtOn = (sides: SideFiles, head: string) => sides.commits?.includes(head) === true

/** The sessions whose files since parting from the default branch are not known for their head and the default's. */
export const sidesToRead = (heads: ProjectHeads, cache: ConflictCache): Array<SessionHead> =>
  bySession(heads).filter((s) => !cache.sides.has(sidesKey(heads.defaultBranch.head, s.head)))

/**
 * The pairs that changed a file in common: each session with the default branch, and each two sessions (in the
 * order of their ids). A session whose files are not known yet is left out.
 */
export const candidates = (heads: ProjectHeads, cache: ConflictCache): Array<Candidate> => {
  const known = bySession(heads).flatMap((session) => {
    const sides = cache.sides.get(sidesKey(heads.defaultBranch.head, session.head))
    return sides === undefined ? [] : [{ session, sides }]
  })
  const out: Array<Candidate> = []
  const base: ConflictSide = heads.defaultBranch
  known.forEach(({ session, sides }, i) => {
    const withBase = intersect(sides.own, sides.base)
    if (withBase.length > 0) out.push({ a: session, b: base, shared: withBase, key: mergeKey(session.head, base.head) })
    for (const other of known.slice(i + 1)) {
      // One branch built on the other (a rebase onto it, as a session told of a conflict may do) merges as it is.
      if (other.session.head === session.head || builtOn(sides, other.session.head) || builtOn(other.sides, session.head)) continue
      const shared = intersect(sides.own, other.sides.own)
      if (shared.length > 0) out.push({ a: session, b: other.session, shared, key: mergeKey(session.head, other.session.head) })
    }
  })
  return out
}

/** The merges still to run: candidates with no outcome for their two heads, each pair of heads once. */
export const mergesToRun = (heads: ProjectHeads, cache: ConflictCache): Array<Candidate> => {
  const seen = new Set<string>()
  return candidates(heads, cache).filter((c) => {
    if (cache.merges.has(c.key) || seen.has(c.key)) return false
    seen.add(c.key)
    return true
  })
}

/** The predictions of the candidates whose merge outcome is known: a conflict (its files), else an overlap. */
export const predictionsOf = (heads: ProjectHeads, cache: ConflictCache): Array<ConflictPrediction> =>
  candidates(heads, cache).flatMap((c) => {
    const outcome = cache.merges.get(c.key)
    if (outcome === undefined) return []
    const side = (s: ConflictSide): ConflictSide => ({ ...(s.sessionId !== undefined ? { sessionId: s.sessionId } : {}), branch: s.branch, head: s.head })
    return [{
      projectId: heads.projectId,
      a: side(c.a),
      b: side(c.b),
      kind: outcome.conflicted.length > 0 ? "conflict" as const : "overlap" as const,
      files: outcome.conflicted.length > 0 ? [...outcome.conflicted].sort() : c.shared
    }]
  })

/** The cache with only what the current heads use: sides of the current heads, merges of the current candidates. */
export const pruneCache = (all: ReadonlyArray<ProjectHeads>, cache: ConflictCache): ConflictCache => {
  const sides = new Set(all.flatMap((heads) => heads.sessions.map((s) => sidesKey(heads.defaultBranch.head, s.head))))
  const merges = new Set(all.flatMap((heads) => candidates(heads, cache).map((c) => c.key)))
  return {
    sides: new Map([...cache.sides].filter(([key]) => sides.has(key))),
    merges: new Map([...cache.merges].filter(([key]) => merges.has(key)))
  }
}

export interface Cleared {
  readonly prediction: ConflictPrediction
  /** `ended`: one of its sessions is no longer live; `resolved`: the two now merge without sharing a changed file, or cleanly where they did. */
  readonly reason: "ended" | "resolved"
}

export interface ConflictChanges {
  /** New, or changed since they were announced (kind, files, a session's head). */
  readonly predicted: ReadonlyArray<ConflictPrediction>
  /** Pairs that had a prediction and have none now. */
  readonly cleared: ReadonlyArray<Cleared>
}

/** What changed between two sets of predictions, for the events; `live` are the sessions still live. */
export const changesBetween = (
  before: ReadonlyArray<ConflictPrediction>,
  after: ReadonlyArray<ConflictPrediction>,
  live: ReadonlySet<string>
): ConflictChanges => {
  const announced = new Set(before.map(announcementOf))
  const pairsNow = new Set(after.map(pairOf))
  const ended = (p: ConflictPrediction) => [p.a.sessionId, p.b.sessionId].some((id) => id !== undefined && !live.has(id))
  return {
    predicted: after.filter((p) => !announced.has(announcementOf(p))),
    cleared: before.filter((p) => !pairsNow.has(pairOf(p))).map((prediction) => ({ prediction, reason: ended(prediction) ? "ended" : "resolved" }))
  }
}

/** What decides which of two sessions' PRs would merge later. */
export interface MergeOrderFacts {
  readonly sessionId: string
  /** Its PR's number, when it has one. */
  readonly prNumber?: number
  /** When the session was made (ISO). */
  readonly createdAt: string
}

/**
 * The session whose PR would merge later, so the one to tell about a predicted conflict: one without a PR merges
 * after one with a PR; of two PRs the later opened (the higher number); of two without, the session made later
 * (then the higher id). A conflict with the default branch is its session's to resolve: `b` undefined.
 */
export const laterToMerge = (a: MergeOrderFacts, b: MergeOrderFacts | undefined): string => {
  if (b === undefined) return a.sessionId
  if ((a.prNumber === undefined) !== (b.prNumber === undefined)) return a.prNumber === undefined ? a.sessionId : b.sessionId
  if (a.prNumber !== undefined && b.prNumber !== undefined && a.prNumber !== b.prNumber) return a.prNumber > b.prNumber ? a.sessionId : b.sessionId
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? a.sessionId : b.sessionId
  return a.sessionId > b.sessionId ? a.sessionId : b.sessionId
}
