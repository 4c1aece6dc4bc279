/**
 * The files of a session's agent where the session runs: the prompt files under orch's data dir there (the layout
 * of store/paths.ts), and what the agent's launch asks for (`AgentLaunch.files`). Locally the prompt files are the
 * store's own; on a host they are copies of the local ones (kept as the record of what the agent was told), made
 * together with the agent's edits through the workspace's `files`, in two round trips at most.
 */
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { applyEditsLocally, type FileEdit } from "../plugins/workspace/file-edits.ts"
import { WorkspaceError, type WorkspaceShape } from "../plugins/workspace/Workspace.ts"
import { type StorePaths, storePaths } from "../store/paths.ts"

/** The places of the session's files on the machine its workspace is on. */
export const pathsOn = (local: StorePaths, workspace: Pick<WorkspaceShape, "files">): Effect.Effect<StorePaths, WorkspaceError> =>
  workspace.files === undefined ? Effect.succeed(local) : Effect.map(workspace.files.dataDir, storePaths)

/** On a host: the prompt files copied from the local ones (those that exist), at the host's places. */
export const promptCopies = (local: StorePaths, there: StorePaths, projectId: string, sessionId: string): ReadonlyArray<FileEdit> =>
  [[local.prompt, there.prompt], [local.systemPrompt, there.systemPrompt]].flatMap(([from, to]) => {
    const path = from!(projectId, sessionId)
    return existsSync(path) ? [{ _tag: "Write" as const, path: to!(projectId, sessionId), content: readFileSync(path, "utf8") }] : []
  })

/** Makes the agent's files where the session runs. */
export const makeAgentFiles = (
  workspace: Pick<WorkspaceShape, "files" | "name">,
  local: StorePaths,
  there: StorePaths,
  session: { readonly projectId: string; readonly sessionId: string },
  edits: ReadonlyArray<FileEdit>
): Effect.Effect<void, WorkspaceError> =>
  workspace.files === undefined
    ? applyEditsLocally(edits).pipe(
      Effect.mapError((reason) => new WorkspaceError({ plugin: workspace.name, operation: "preparing the agent's files", reason }))
    )
    : workspace.files.apply([...promptCopies(local, there, session.projectId, session.sessionId), ...edits])
