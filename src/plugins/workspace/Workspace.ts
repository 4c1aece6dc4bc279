/** The workspace slot: the working copy a session's agent works in (a git worktree, a clone). */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProjectConfig } from "../../config/schema.ts"

export class WorkspaceError extends Schema.TaggedError<WorkspaceError>()("WorkspaceError", {
  plugin: Schema.String,
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.plugin}: ${this.operation}: ${this.reason}`
  }
}

export interface WorkspaceSpec {
  readonly project: ProjectConfig
  readonly sessionId: string
  readonly branch: string
  /** Where the workspace goes. */
  readonly path: string
}

export interface CreatedWorkspace {
  readonly path: string
  readonly branch: string
  /** Whether the branch was made for this session (and may be deleted when the spawn is undone). */
  readonly createdBranch: boolean
  /** Things that went wrong without stopping the spawn (e.g. a failed fetch). */
  readonly warnings: ReadonlyArray<string>
}

export interface UnsavedWork {
  /** Files changed, added or deleted and not committed. */
  readonly uncommitted: number
  /** Commits on the branch that are on no remote branch and not in the default branch. */
  readonly unpushed: number
}

export interface WorkspaceShape {
  readonly name: string
  /** Makes the workspace: fetches, branches, adds symlinks, runs `postCreate`. Undoes itself if a step fails. */
  readonly create: (spec: WorkspaceSpec) => Effect.Effect<CreatedWorkspace, WorkspaceError>
  readonly exists: (path: string) => Effect.Effect<boolean>
  /** Whether the project already has `branch` (then `create` reuses it rather than making it). */
  readonly hasBranch: (project: ProjectConfig, branch: string) => Effect.Effect<boolean, WorkspaceError>
  readonly unsavedWork: (project: ProjectConfig, path: string) => Effect.Effect<UnsavedWork, WorkspaceError>
  /**
   * Saves everything in the workspace (commits and uncommitted files) to `ref` in the project's repository. What
   * `ref` held before stays reachable from it: a rescue never drops an earlier one.
   */
  readonly rescue: (project: ProjectConfig, path: string, ref: string) => Effect.Effect<string, WorkspaceError>
  /** Removes the workspace; with `deleteBranch`, also the branch (only ever one the session created). */
  readonly destroy: (
    project: ProjectConfig,
    path: string,
    options: { readonly branch: string; readonly deleteBranch: boolean }
  ) => Effect.Effect<void, WorkspaceError>
}

export class Workspace extends Context.Service<Workspace, WorkspaceShape>()("orch/plugins/Workspace") {}
