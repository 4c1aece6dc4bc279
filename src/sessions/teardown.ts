/**
 * Ending a session's resources without losing work: the agent is stopped, and the workspace is removed only
 * after anything unsaved in it (uncommitted files, unpushed commits) is saved to `refs/orch/rescue/<session>`.
 */
import * as Effect from "effect/Effect"
import type { ProjectConfig } from "../config/schema.ts"
import type { RuntimeHandle, SessionRecord } from "../domain/session.ts"
import { Runtime } from "../plugins/runtime/Runtime.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { EventLog } from "../store/EventLog.ts"

/** The session whose workspace goes: its id, and what it works on (for the rescue commit's message). */
export type EndingSession = Pick<SessionRecord, "sessionId" | "issueId" | "task" | "role">

export const rescueRef = (sessionId: string) => `refs/orch/rescue/${sessionId}`

/**
 * The message of every rescue commit, whichever workspace makes it (a worktree here, a clone, a host's): it names the
 * session and what it worked on.
 */
export const rescueMessage = (session: EndingSession): string => {
  const work = session.role === "orchestrator" ? "the project's orchestrator" : `${session.task !== undefined ? "task" : "issue"} ${session.issueId}`
  return [
    `orch: work saved from ${session.sessionId} (${work})`,
    "",
    "What the session's worktree held when orch removed it, uncommitted and untracked files included, on top of the",
    `commit it was on. A second parent, when there is one, is the work saved to ${rescueRef(session.sessionId)} before.`
  ].join("\n")
}

export interface RemovedWorkspace {
  /** Where unsaved work went, if there was any. */
  readonly rescuedTo?: string
  readonly commit?: string
  /** Asked to delete the branch, and it held no commits of its own: it is gone. */
  readonly branchDeleted?: boolean
}

/**
 * Removes the workspace, first saving unsaved work to the rescue ref. The branch is kept, unless `deleteBranch` (only
 * ever a branch the session's own spawn made) and it holds no commits of its own: whatever was uncommitted is in the
 * rescue ref then (its commit's parent is where the branch started), and the branch holds nothing else. A workspace
 * whose directory is gone (deleted by hand) is still destroyed: git keeps a worktree registered until it is pruned.
 */
export const removeWorkspaceSafely = Effect.fn("Sessions.removeWorkspace")(function*(
  project: ProjectConfig,
  session: EndingSession,
  path: string,
  branch: string,
  options: { readonly deleteBranch?: boolean } = {}
) {
  const { sessionId } = session
  const workspace = yield* Workspace
  if (!(yield* workspace.exists(path))) {
    // git makes a new branch before its worktree's directory: a spawn killed in between left the branch alone.
    yield* workspace.destroy(project, path, { branch, deleteBranch: options.deleteBranch === true })
    return (options.deleteBranch === true ? { branchDeleted: true } : {}) satisfies RemovedWorkspace
  }
  const unsaved = yield* workspace.unsavedWork(project, path)
  let removed: RemovedWorkspace = {}
  if (unsaved.uncommitted > 0 || unsaved.unpushed > 0) {
    const ref = rescueRef(sessionId)
    const commit = yield* workspace.rescue(project, path, ref, rescueMessage(session))
    removed = { rescuedTo: ref, commit }
    yield* EventLog.use((events) =>
      events.append({
        type: "session.rescued",
        sessionId,
        projectId: project.id,
        message: `unsaved work saved to ${ref}`,
        data: { ref, commit, uncommitted: unsaved.uncommitted, unpushed: unsaved.unpushed }
      })
    ).pipe(
      Effect.catch((error) =>
        Effect.logWarning(`unsaved work of ${sessionId} is saved to ${ref}, but the session.rescued event could not be recorded: ${error.message}`)
      )
    )
  }
  const deleteBranch = options.deleteBranch === true && unsaved.unpushed === 0
  yield* workspace.destroy(project, path, { branch, deleteBranch })
  return deleteBranch ? { ...removed, branchDeleted: true } : removed
})

export const stopRuntime = (handle: RuntimeHandle | null) => handle === null ? Effect.void : Runtime.use((runtime) => runtime.destroy(handle))
