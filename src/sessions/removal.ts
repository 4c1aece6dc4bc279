/**
 * Which session records `orch session rm` and `prune` may remove: only ended ones (killed, done, merged, exited, errored,
 * or a live one whose agent is gone), never one whose agent still runs, never one whose worktree still holds unsaved
 * work. Pure.
 */
import { isEnded, isLive, type SessionRecord, type SessionStatus } from "../domain/session.ts"
import type { UnsavedWork } from "../plugins/workspace/Workspace.ts"
import { rescueRef } from "./teardown.ts"

/** Statuses whose record may go: the session ended (merged, killed, done, exited), or its agent exited (errored). */
export const REMOVABLE_STATUSES: ReadonlyArray<SessionStatus> = ["merged", "killed", "done", "exited", "errored"]

export interface RemovalFacts {
  /** The agent still runs in its terminal; false when its terminal is gone or its agent exited; undefined when it could not be asked. */
  readonly running: boolean | undefined
  /** What the worktree holds that is not saved anywhere; `absent` when there is no worktree; undefined when it could not be looked at. */
  readonly worktree: "absent" | UnsavedWork | undefined
}

export type RemovalVerdict =
  | { readonly _tag: "Remove" }
  | { readonly _tag: "Keep"; readonly reason: string }

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** Whether `record` may be removed, and if not why, in words a person can act on. */
export const removalVerdict = (record: SessionRecord, facts: RemovalFacts, configPath?: string): RemovalVerdict => {
  const id = record.sessionId
  if (record.status === "spawning") return { _tag: "Keep", reason: "it is being spawned" }
  // A live session whose agent is gone has ended as an errored one has, whatever its record last said.
  if (!REMOVABLE_STATUSES.includes(record.status) && !(isLive(record) && facts.running === false)) {
    return { _tag: "Keep", reason: `it is live (${record.status}); \`orch session kill ${id}\` ends it first` }
  }
  if (facts.running === undefined || facts.worktree === undefined) {
    return {
      _tag: "Keep",
      reason: `orch cannot look at its terminal and worktree: its project ${record.projectId} is not in ${
        configPath ?? "any config found from here"
      }; run \`orch session rm ${id}\`, which finds the config it was spawned under`
    }
  }
  if (facts.running) return { _tag: "Keep", reason: `its agent still runs in its terminal; \`orch session kill ${id}\` stops it first` }
  if (facts.worktree !== "absent" && (facts.worktree.uncommitted > 0 || facts.worktree.unpushed > 0)) {
    const what = [
      facts.worktree.uncommitted > 0 ? plural(facts.worktree.uncommitted, "uncommitted file", "uncommitted files") : undefined,
      facts.worktree.unpushed > 0 ? plural(facts.worktree.unpushed, "unpushed commit", "unpushed commits") : undefined
    ].filter((part) => part !== undefined).join(" and ")
    return {
      _tag: "Keep",
      reason: `its worktree ${record.workspacePath} has unsaved work (${what}); \`orch session kill ${id}\` saves it to ${
        rescueRef(id)
      } and removes the worktree, or commit and push it`
    }
  }
  return { _tag: "Remove" }
}

/** What can be known of a record whose project orch cannot load: ended sessions left no terminal; a worktree that is gone holds nothing. */
export const factsWithoutPlugins = (record: SessionRecord, worktreeExists: boolean): RemovalFacts => ({
  running: isEnded(record.status) ? false : undefined,
  worktree: worktreeExists ? undefined : "absent"
})
