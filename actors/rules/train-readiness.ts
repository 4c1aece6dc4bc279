/**
 * Why a session's PR cannot join its project's merge train (a person's merge from the dashboard, refused): what
 * actually blocks it, read from its record, in the words a person acts on. Pure.
 */
import type { SessionRecord } from "../../src/domain/session.ts"

export type Readiness = Pick<SessionRecord, "pr" | "status" | "checks" | "review" | "mergeable" | "role">

/** Each thing that keeps the PR out of the train, most basic first; empty when it is ready (status `mergeable`). */
export const notReadyReasons = (record: Readiness, defaultBranch: string): ReadonlyArray<string> => {
  if (record.role === "orchestrator") return ["it is the orchestrator's session, which has no pull request to merge"]
  const pr = record.pr
  if (pr === null) return ["it has no pull request"]
  if (pr.state === "merged") return ["it is merged already"]
  if (pr.state === "closed") return ["its pull request is closed"]
  const reasons = [
    pr.state === "draft" ? "it is a draft" : undefined,
    record.review === "changes_requested" ? "changes were requested on it" : record.review !== "approved" ? "it is not approved" : undefined,
    record.checks === "failing"
      ? "its checks fail"
      : record.checks === "pending"
      ? "its checks are still running"
      : record.checks !== "passing"
      ? "no checks have reported on it yet"
      : undefined,
    record.mergeable === false ? `its branch conflicts with ${defaultBranch} (rebase it on ${defaultBranch})` : undefined
  ].filter((reason): reason is string => reason !== undefined)
  if (reasons.length > 0 || record.status === "mergeable") return reasons
  // Approved and green, but its session is in a state the train waits out (its agent needs input, it is stuck, …).
  return [`its session is ${record.status.replaceAll("_", " ")}`]
}

/** One sentence: "its checks fail and its branch conflicts with main". */
export const notReadySentence = (reasons: ReadonlyArray<string>): string =>
  reasons.length <= 1 ? (reasons[0] ?? "") : `${reasons.slice(0, -1).join(", ")} and ${reasons.at(-1)}`
