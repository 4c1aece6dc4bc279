/**
 * Whose failure a failed spawn of queued work is (docs/queue.md, "When a spawn fails"). Only the entry's own failure
 * drops it: the issue is not an issue, does not exist or is closed, another session has it, or its branch cannot be
 * used (git refuses its name, it is checked out elsewhere, every name of a task's is taken). A failure of where the
 * session was to run (a host that cannot read or clone origin, is down, refused the key, has no room; this machine
 * when its worktree or agent would not start) holds that host back for the project; one of the project's own setup
 * (credentials its tracker refused) holds the project. Either way the entry waits where it was. Pure.
 */
export type FailureOwner =
  | { readonly _tag: "Entry"; readonly reason: string }
  | { readonly _tag: "Wait"; readonly reason: string }
  | { readonly _tag: "Host"; readonly host: string; readonly reason: string }
  | { readonly _tag: "Project"; readonly reason: string }

/** What a spawn's failure tells of itself (its tagged error's fields). */
export interface SpawnFailure {
  readonly _tag?: string
  readonly message: string
  /** SpawnFailed: the step it failed at; IssueHasSession: whether that session is still being spawned. */
  readonly step?: string
  readonly spawning?: boolean
  /** Where it ran (SpawnFailed): a host's name, or absent for this machine. */
  readonly host?: string
  /** SpawnFailed: why, without the step. */
  readonly reason?: string
  /** SpawnFailed: the session's branch cannot be used (git refuses its name, or it is checked out elsewhere). */
  readonly branchUnusable?: boolean
}

/** Steps whose failure is the entry's own, whatever host it ran on. */
const ENTRY_STEPS = new Set(["choosing a branch"])

export const failureOwner = (error: SpawnFailure): FailureOwner => {
  switch (error._tag) {
    case "InvalidIssueId":
    case "IssueNotFound":
    case "IssueClosed":
    case "EmptyTask":
      return { _tag: "Entry", reason: error.message }
    case "IssueHasSession":
      return error.spawning === true ? { _tag: "Wait", reason: `waiting: ${error.message}` } : { _tag: "Entry", reason: error.message }
    case "NoHostFits":
      return { _tag: "Wait", reason: error.message }
    case "TrackerAuthFailed":
      return { _tag: "Project", reason: error.message }
    case "SpawnFailed":
      return (error.step !== undefined && ENTRY_STEPS.has(error.step)) || error.branchUnusable === true
        ? { _tag: "Entry", reason: error.message }
        : { _tag: "Host", host: error.host ?? "local", reason: `${error.step !== undefined ? `${error.step}: ` : ""}${error.reason ?? error.message}` }
    default:
      // No host fits now, the project left the config, the store could not be written: it waits and is tried again.
      return { _tag: "Wait", reason: `waiting: ${error.message}` }
  }
}
