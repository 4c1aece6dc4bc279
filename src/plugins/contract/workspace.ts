/** The workspace slot as a plugin module's component sees it: the working copy a session's agent works in. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Returned } from "./common.ts"

/** The project a workspace belongs to. */
export interface WorkspaceProject {
  readonly projectPath: string
  readonly defaultBranch: string
  readonly repo: string
}

export interface WorkspaceCreate extends WorkspaceProject {
  readonly sessionId: string
  readonly branch: string
  /** Where orch would put it; `create` may choose another place and say so. */
  readonly path: string
}

export interface WorkspaceDestroy extends WorkspaceProject {
  readonly path: string
  readonly branch: string
  /** Also delete `branch` (only ever one `create` made). */
  readonly deleteBranch: boolean
}

/** What `create` returns (or nothing): where the workspace is, and whether it made the branch. */
export const WorkspaceFromPlugin = Schema.UndefinedOr(Schema.NullOr(Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  createdBranch: Schema.optionalKey(Schema.Boolean)
})))
export type WorkspaceFromPlugin = typeof WorkspaceFromPlugin.Encoded

/** What `unsavedWork` returns: files changed and not committed, commits not pushed. */
export const UnsavedWorkFromPlugin = Schema.Struct({
  uncommitted: Schema.Int.pipe(Schema.withDecodingDefaultKey(Effect.succeed(0))),
  unpushed: Schema.Int.pipe(Schema.withDecodingDefaultKey(Effect.succeed(0)))
})
export type UnsavedWorkFromPlugin = typeof UnsavedWorkFromPlugin.Encoded

export interface WorkspaceComponent {
  readonly name?: string
  create(spec: WorkspaceCreate): Returned<WorkspaceFromPlugin>
  /** Also called when the workspace's directory is gone (deleted by hand): clear what still names it. */
  destroy(spec: WorkspaceDestroy): Returned<unknown>
  /** Whether the workspace is still there. Without it, orch takes it to be. */
  exists?(path: string): Returned<boolean>
  /** Whether the project already has `branch`. Without it, never. */
  hasBranch?(project: WorkspaceProject, branch: string): Returned<boolean>
  /** Work that removing the workspace would lose. Without it, none. */
  unsavedWork?(project: WorkspaceProject, path: string): Returned<UnsavedWorkFromPlugin>
  /**
   * Saves everything in the workspace to `ref`, as a commit with `message` (orch's words, naming the session); returns
   * the commit. Without it, cleanup cannot rescue work.
   */
  rescue?(project: WorkspaceProject, path: string, ref: string, message: string): Returned<string>
}
