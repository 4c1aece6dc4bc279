/**
 * What `orch session cleanup` makes of a session: whether it ends it, and with which status and reason, from its
 * record, its PR, its issue's state in the tracker and the liveness of its terminal. Pure; SessionManager.cleanup
 * probes and carries the verdict out.
 *
 * - PR merged → `merged`; PR closed without merging, or issue completed (done, canceled) → `done`;
 * - otherwise a terminal that is gone, or an agent that exited → `exited`: the agent stopped before its work
 *   landed (the reason says whether it opened a PR, and that an open PR is left open; for a project with no scm,
 *   where no PR is ever opened, that its work is on its branch);
 * - an alive terminal, or one whose liveness is unknown (not probed, or the probe failed), is left alone.
 */
import * as Schema from "effect/Schema"
import type { SessionRecord } from "../domain/session.ts"
import type { Liveness } from "../plugins/runtime/Runtime.ts"
import type { IssueState } from "../plugins/tracker/Tracker.ts"

/** The status a cleaned session gets. */
export const CleanedStatus = Schema.Literals(["merged", "done", "exited"])
/** What ended it, for programs (`session.cleaned`'s `data.cause`, `orch session cleanup --json`). */
export const CleanupCause = Schema.Literals(["pr-merged", "pr-closed", "issue-completed", "terminal-gone", "agent-exited"])

export interface CleanupVerdict {
  readonly status: typeof CleanedStatus.Type
  readonly cause: typeof CleanupCause.Type
  /** For people: the `session.cleaned` event's message and what `orch session cleanup` prints. */
  readonly reason: string
}

export interface CleanupFacts {
  /** The issue's workflow state, where the project's tracker can tell. */
  readonly issueState?: IssueState | undefined
  /** The terminal's liveness; undefined when it was not probed or the probe could not tell. */
  readonly liveness?: Liveness | undefined
  /** False for a project with no scm (`scm: none`): its sessions open no PR, so none is missed. True unless given. */
  readonly followsPrs?: boolean | undefined
}

/** Sessions cleanup never touches: already ended (killed, cleaned), or a spawn still under way (reconcile's). */
export const isCleanable = (record: SessionRecord): boolean => record.endedAt === undefined && record.status !== "killed" && record.status !== "spawning"

/** The verdict that needs no probe (the PR or the issue decides), if any. */
export const settledVerdict = (record: SessionRecord, issueState?: IssueState): CleanupVerdict | undefined => {
  if (!isCleanable(record)) return undefined
  if (record.pr?.state === "merged") return { status: "merged", cause: "pr-merged", reason: `PR #${record.pr.number} merged` }
  if (record.pr?.state === "closed") return { status: "done", cause: "pr-closed", reason: `PR #${record.pr.number} closed without merging` }
  if (issueState?.completed === true) return { status: "done", cause: "issue-completed", reason: `issue ${record.issueId} is ${issueState.name}` }
  return undefined
}

/** What became of the session's PR, for a session whose agent stopped. */
const prNote = (record: SessionRecord, noPr: string, followsPrs: boolean): string =>
  record.pr !== null
    ? `; PR #${record.pr.number} is still ${record.pr.state === "draft" ? "a draft" : "open"}`
    : record.role === "orchestrator"
    ? ""
    : followsPrs
    ? noPr
    : `; the project has no scm, so its work is on branch ${record.branch}, not in a PR`

export const cleanupVerdict = (record: SessionRecord, facts: CleanupFacts = {}): CleanupVerdict | undefined => {
  const settled = settledVerdict(record, facts.issueState)
  if (settled !== undefined || !isCleanable(record)) return settled
  const liveness: Liveness | undefined = record.runtime === null ? { _tag: "Gone" } : facts.liveness
  const followsPrs = facts.followsPrs ?? true
  switch (liveness?._tag) {
    case "Gone":
      return { status: "exited", cause: "terminal-gone", reason: `its terminal session is gone${prNote(record, ", and no PR was opened", followsPrs)}` }
    case "Exited": {
      const code = liveness.exitCode !== undefined ? ` (code ${liveness.exitCode})` : liveness.signal !== undefined ? ` (signal ${liveness.signal})` : ""
      return { status: "exited", cause: "agent-exited", reason: `its agent exited${code}${prNote(record, " before opening a PR", followsPrs)}` }
    }
    case "Alive":
    case undefined:
      return undefined
  }
}
