/**
 * How GitHub decides what a pull request's merge state is and whether a merge or a branch update goes ahead,
 * as pure functions of what the emulator knows (computed from its git repository). The refusals carry
 * GitHub's own status codes and messages.
 */

/** Checks on a head commit, rolled up: `none` when nothing reported on it. */
export type ChecksState = "success" | "pending" | "failure" | "none"

export interface MergeFacts {
  readonly open: boolean
  readonly draft: boolean
  /** Whether head and base conflict; null while mergeability is being computed (GitHub's background job). */
  readonly conflicts: boolean | null
  /** The base branch has commits the head lacks. */
  readonly behind: boolean
  /** The base branch requires its checks to pass on a head that is up to date (branch protection's `strict`). */
  readonly requireUpToDate: boolean
  /** Every check run and commit status on the head. */
  readonly checks: ChecksState
  /** The CI's own check runs on the head (the checks a protected base requires). */
  readonly required: ChecksState
}

/** GraphQL's `MergeStateStatus`; REST's `mergeable_state` is the same in lower case. */
export type MergeStateStatus = "BEHIND" | "BLOCKED" | "CLEAN" | "DIRTY" | "DRAFT" | "UNKNOWN" | "UNSTABLE"

export const mergeStateStatus = (facts: MergeFacts): MergeStateStatus =>
  !facts.open || facts.conflicts === null
    ? "UNKNOWN"
    : facts.conflicts
    ? "DIRTY"
    : facts.draft
    ? "DRAFT"
    : facts.requireUpToDate && facts.behind
    // GitHub reports `behind` only where branches must be up to date; elsewhere a behind head merges as it is.
    ? "BEHIND"
    : facts.requireUpToDate && facts.required !== "success"
    ? "BLOCKED"
    : facts.checks === "pending" || facts.checks === "failure"
    ? "UNSTABLE"
    : "CLEAN"

/** REST's `mergeable`: null for a closed pull request and while being computed. */
export const restMergeable = (facts: MergeFacts): boolean | null => facts.open && facts.conflicts !== null ? !facts.conflicts : null

/** GraphQL's `MergeableState`. */
export const graphqlMergeable = (facts: MergeFacts): "MERGEABLE" | "CONFLICTING" | "UNKNOWN" =>
  !facts.open || facts.conflicts === null ? "UNKNOWN" : facts.conflicts ? "CONFLICTING" : "MERGEABLE"

export interface Refusal {
  readonly status: number
  readonly message: string
}

/** The check protected bases require: the CI's one check run. */
export const REQUIRED_CHECK = "ci"

/** Why `PUT /pulls/{n}/merge` is refused, or undefined when it merges. `conflicts` is computed before, never null. */
export const mergeRefusal = (facts: MergeFacts & { readonly conflicts: boolean }, head: string, expectedHead: string | undefined): Refusal | undefined =>
  !facts.open
    ? { status: 405, message: "Pull Request is not mergeable" }
    : expectedHead !== undefined && expectedHead !== head
    ? { status: 409, message: "Head branch was modified. Review and try the merge again." }
    : facts.draft
    ? { status: 405, message: "Pull Request is still a draft" }
    : facts.conflicts
    ? { status: 405, message: "Pull Request is not mergeable" }
    : facts.requireUpToDate && facts.behind
    ? { status: 405, message: "Head branch is not up to date with the base branch." }
    : facts.requireUpToDate && facts.required === "failure"
    ? { status: 405, message: `Required status check "${REQUIRED_CHECK}" is failing.` }
    : facts.requireUpToDate && facts.required !== "success"
    ? { status: 405, message: `Required status check "${REQUIRED_CHECK}" is expected.` }
    : undefined

/**
 * Why `PUT /pulls/{n}/update-branch` is refused, or undefined when the base is merged into the head. Whether
 * branches must be up to date does not matter here: GitHub updates any head that is behind.
 */
export const updateBranchRefusal = (
  facts: Pick<MergeFacts, "open" | "behind"> & { readonly conflicts: boolean },
  head: string,
  expectedHead: string | undefined
): Refusal | undefined =>
  !facts.open
    ? { status: 422, message: "Pull request is closed" }
    : expectedHead !== undefined && expectedHead !== head
    ? { status: 422, message: "expected head sha didn’t match current head ref." }
    : !facts.behind
    ? { status: 422, message: "There are no new commits on the base branch." }
    : facts.conflicts
    ? { status: 422, message: "merge conflict between base and head" }
    : undefined

/** Rolls check runs (`status`, `conclusion`) and commit statuses (`state`) up as GitHub's combined state does. */
export const rollUp = (
  runs: ReadonlyArray<{ readonly status: string; readonly conclusion: string | null }>,
  statuses: ReadonlyArray<{ readonly state: string }> = []
): ChecksState =>
  runs.length === 0 && statuses.length === 0
    ? "none"
    : runs.some((r) => r.status === "completed" && r.conclusion !== "success") || statuses.some((s) => s.state === "failure" || s.state === "error")
    ? "failure"
    : runs.some((r) => r.status !== "completed") || statuses.some((s) => s.state === "pending")
    ? "pending"
    : "success"
