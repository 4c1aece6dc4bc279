/**
 * Whether a pull request's head is behind its base and whether the two merge cleanly, computed with real git
 * (`merge-base --is-ancestor`, `merge-tree --write-tree`) for the pair of commits the branches point at now,
 * so it follows every move of either. Eager by default (computed when asked); with a delay it is lazy as on
 * GitHub: the first look after a move answers "unknown" and starts a background job that settles it.
 */
import { branchSha, isAncestor, mergeTree } from "./git.ts"
import type { Jobs } from "./jobs.ts"

export interface Mergeability {
  readonly base: string
  readonly head: string
  readonly behind: boolean
  /** null while the background job computes it. */
  readonly conflicts: boolean | null
}

export interface MergeablePull {
  readonly head: string
  readonly base: string
  /** Set by a test to force the answer whatever git says. */
  readonly forcedConflicts?: boolean | undefined
}

const compute = (gitDir: string, base: string, head: string) => {
  const behind = !isAncestor(gitDir, base, head)
  // A head that has every commit of its base merges into it as itself: no conflict is possible.
  return { behind, conflicts: behind && mergeTree(gitDir, base, head) === "conflicts" }
}

export const makeMergeability = (options: { readonly delayMs?: number | undefined; readonly jobs: Jobs }) => {
  const known = new WeakMap<MergeablePull, Mergeability>()
  const failed = new WeakSet<MergeablePull>()

  const shas = (gitDir: string, pull: MergeablePull) => {
    const base = branchSha(gitDir, pull.base)
    const head = branchSha(gitDir, pull.head)
    return base === undefined || head === undefined ? undefined : { base, head }
  }
  const withForced = (pull: MergeablePull, value: Mergeability): Mergeability =>
    pull.forcedConflicts === undefined || value.conflicts === null ? value : { ...value, conflicts: pull.forcedConflicts }

  /** Computed now, whatever the mode: what a merge or a branch update acts on. Undefined when a branch is gone. */
  const now = (gitDir: string, pull: MergeablePull): Mergeability | undefined => {
    const at = shas(gitDir, pull)
    if (at === undefined) return undefined
    const value = { ...at, ...compute(gitDir, at.base, at.head) }
    known.set(pull, value)
    return withForced(pull, value)
  }

  /** What a read of the pull request shows. */
  const of = (gitDir: string, pull: MergeablePull): Mergeability | undefined => {
    const at = shas(gitDir, pull)
    if (at === undefined) return undefined
    if (failed.has(pull)) {
      failed.delete(pull)
      return now(gitDir, pull)
    }
    const cached = known.get(pull)
    if (cached !== undefined && cached.base === at.base && cached.head === at.head) return withForced(pull, cached)
    if (options.delayMs === undefined) return now(gitDir, pull)
    const computing: Mergeability = { ...at, behind: false, conflicts: null }
    known.set(pull, computing)
    options.jobs.after(options.delayMs, () => {
      // Stored only if nothing newer was stored meanwhile; a later read of moved branches starts its own job.
      if (known.get(pull) !== computing) return
      try {
        known.set(pull, { ...at, ...compute(gitDir, at.base, at.head) })
      } catch {
        // git failed: the next read computes again, at once, and answers its failure (a 500 naming git's error).
        known.delete(pull)
        failed.add(pull)
      }
    })
    return computing
  }

  return { of, now }
}

export type MergeabilityOf = ReturnType<typeof makeMergeability>
