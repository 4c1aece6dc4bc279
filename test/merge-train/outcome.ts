/**
 * What happened in a merge-train bench run, read from the repohost's own record of it (its webhooks, in the
 * order it sent them): the textual conflicts that actually happened when pull requests merged, and how well
 * orch's conflict prediction (`session.conflict_predicted`) foresaw them. Pure but for the conflict test it is given.
 */
import { pairKey } from "./scenario.ts"

/** The repohost's record, in order: a pull request's head moved, a pull request merged, the default branch moved. */
export type RepohostEvent =
  | { readonly kind: "head"; readonly branch: string; readonly sha: string; readonly at: number }
  | { readonly kind: "merged"; readonly branch: string; readonly at: number }
  | { readonly kind: "base"; readonly before: string; readonly after: string; readonly at: number }

export interface HappenedConflict {
  /** The branch whose merge moved the default branch, and the open one that conflicts with it since. */
  readonly merged: string
  readonly other: string
  readonly at: number
}

/**
 * Each time a merge moves the default branch, every open head that merged cleanly into the old base but conflicts
 * with the new one had a textual conflict with the branch just merged. `conflicts(a, b)` says whether two commits
 * conflict (git merge-tree).
 */
export const conflictsThatHappened = (
  events: ReadonlyArray<RepohostEvent>,
  conflicts: (a: string, b: string) => boolean
): Array<HappenedConflict> => {
  const heads = new Map<string, string>()
  const happened: Array<HappenedConflict> = []
  let justMerged: string | undefined
  for (const event of events) {
    if (event.kind === "head") heads.set(event.branch, event.sha)
    else if (event.kind === "merged") {
      heads.delete(event.branch)
      justMerged = event.branch
    } else {
      if (justMerged !== undefined) {
        for (const [branch, sha] of heads) {
          if (conflicts(event.after, sha) && !conflicts(event.before, sha)) happened.push({ merged: justMerged, other: branch, at: event.at })
        }
      }
      justMerged = undefined
    }
  }
  return happened
}

export interface Merge {
  readonly branch: string
  /** The PR's head when it merged, and the default branch's head it merged onto. */
  readonly head: string
  readonly base: string
}

/** Each merge: the head its branch had then, and the base the merge moved the default branch from. */
export const mergesOf = (events: ReadonlyArray<RepohostEvent>): Array<Merge> => {
  const heads = new Map<string, string>()
  const merges: Array<Merge> = []
  let justMerged: string | undefined
  for (const event of events) {
    if (event.kind === "head") heads.set(event.branch, event.sha)
    else if (event.kind === "merged") justMerged = event.branch
    else {
      const head = justMerged === undefined ? undefined : heads.get(justMerged)
      if (justMerged !== undefined && head !== undefined) merges.push({ branch: justMerged, head, base: event.before })
      justMerged = undefined
    }
  }
  return merges
}

export interface Prediction {
  /** The pair's key (scenario.ts `pairKey`). */
  readonly pair: string
  readonly at: number
}

export interface PredictionScore {
  /** Distinct pairs predicted, and of them those that conflicted when one of the two merged after the prediction. */
  readonly predicted: number
  readonly correct: number
  /** Conflicts that happened, and of them those whose pair was predicted before. */
  readonly happened: number
  readonly foreseen: number
  /** correct / predicted and foreseen / happened; undefined when there is nothing to divide by. */
  readonly precision: number | undefined
  readonly recall: number | undefined
}

export const predictionScore = (predictions: ReadonlyArray<Prediction>, happened: ReadonlyArray<Prediction>): PredictionScore => {
  const firstPredicted = new Map<string, number>()
  for (const { pair, at } of predictions) firstPredicted.set(pair, Math.min(at, firstPredicted.get(pair) ?? Infinity))
  const foreseen = happened.filter(({ pair, at }) => (firstPredicted.get(pair) ?? Infinity) <= at).length
  const correct = [...firstPredicted].filter(([pair, at]) => happened.some((h) => h.pair === pair && h.at >= at)).length
  return {
    predicted: firstPredicted.size,
    correct,
    happened: happened.length,
    foreseen,
    precision: firstPredicted.size === 0 ? undefined : correct / firstPredicted.size,
    recall: happened.length === 0 ? undefined : foreseen / happened.length
  }
}

/** A happened conflict as a Prediction over the names `nameOf` gives its branches (sessions, tasks). */
export const asPair = (conflict: HappenedConflict, nameOf: (branch: string) => string): Prediction => ({
  pair: pairKey(nameOf(conflict.merged), nameOf(conflict.other)),
  at: conflict.at
})
