/**
 * Ending a session's resources without losing work: the agent is stopped, and the workspace is removed only
 * after anything unsaved in it (uncommitted files, unpushed commits) is saved to `refs/orch/rescue/<session>`.
 */
import * as Effect from "effect/Effect"
import type { ProjectConfig } from "../config/schema.ts"
import type { RuntimeHandle } from "../domain/session.ts"
import { Runtime } from "../plugins/runtime/Runtime.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { EventLog } from "../store/EventLog.ts"

export const rescueRef = (sessionId: string) => `refs/orch/rescue/${sessionId}`

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
 * rescue ref then (its commit's parent is where the branch started), and the branch holds nothing else.
 */
export const removeWorkspaceSafely = Effect.fn("Sessions.removeWorkspace")(function*(
  project: ProjectConfig,
  sessionId: string,
  path: string,
  branch: string,
  options: { readonly deleteBranch?: boolean } = {}
) {
  const workspace = yield* Workspace
  if (!(yield* workspace.exists(path))) {
    if (options.deleteBranch !== true) return {} satisfies RemovedWorkspace
    // git makes a new branch before its worktree's directory: a spawn killed in between left the branch alone.
    yield* workspace.destroy(project, path, { branch, deleteBranch: true })
    return { branchDeleted: true } satisfies RemovedWorkspace
  }
  const unsaved = yield* workspace.unsavedWork(project, path)
  let removed: RemovedWorkspace = {}
  if (unsaved.uncommitted > 0 || unsaved.unpushed > 0) {
    const ref = rescueRef(sessionId)
    const commit = yield* workspace.rescue(project, path, ref)
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
