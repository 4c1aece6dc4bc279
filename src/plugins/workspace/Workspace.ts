/** The workspace slot: the working copy a session's agent works in (a git worktree, a clone). */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ProjectConfig } from "../../config/schema.ts"
import type { FileEdit } from "./file-edits.ts"

export class WorkspaceError extends Schema.TaggedError<WorkspaceError>()("WorkspaceError", {
  plugin: Schema.String,
  operation: Schema.String,
  reason: Schema.String,
  /** The session's branch cannot be used (git refuses its name, or it is checked out elsewhere): the work's own problem, not the machine's. */
  branchUnusable: Schema.optionalKey(Schema.Boolean)
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

/** What `create` is about to make, told before it makes anything: a spawn writes it into its journal first. */
export interface MakingPlan {
  /** Whether it makes the branch (so undoing the spawn may delete it), or reuses one that exists. */
  readonly createdBranch: boolean
}

/** Told the plan before anything is made; its failure makes nothing and fails `create`. */
export type BeforeMaking<E> = (plan: MakingPlan) => Effect.Effect<void, E>

export interface UnsavedWork {
  /** Files changed, added or deleted and not committed. */
  readonly uncommitted: number
  /** Commits on the branch that are on no remote branch and not in the default branch. */
  readonly unpushed: number
}

/** The machine a workspace plugin makes its workspaces on, when it is not this one (a host's). */
export interface WorkspaceFiles {
  /** orch's data dir there, absolute: a session's prompt and activity files are where store/paths.ts puts them under it. */
  readonly dataDir: Effect.Effect<string, WorkspaceError>
  /** Makes the edits there (src/plugins/workspace/file-edits.ts). */
  readonly apply: (edits: ReadonlyArray<FileEdit>) => Effect.Effect<void, WorkspaceError>
}

export interface WorkspaceShape {
  readonly name: string
  /** Absent: its workspaces are on this machine, and so are the session's files. */
  readonly files?: WorkspaceFiles
  /**
   * Makes the workspace: fetches, branches, adds symlinks, runs `postCreate`. Undoes itself if a step fails.
   * `beforeMaking` hears whether it will make the branch before anything is made, from the same look at the
   * repository that decides it (one look, not a `hasBranch` first and another inside).
   */
  readonly create: <E = never>(spec: WorkspaceSpec, beforeMaking?: BeforeMaking<E>) => Effect.Effect<CreatedWorkspace, WorkspaceError | E>
  readonly exists: (path: string) => Effect.Effect<boolean>
  /** Whether the project already has `branch` (then `create` reuses it rather than making it). */
  readonly hasBranch: (project: ProjectConfig, branch: string) => Effect.Effect<boolean, WorkspaceError>
  readonly unsavedWork: (project: ProjectConfig, path: string) => Effect.Effect<UnsavedWork, WorkspaceError>
  /**
   * Saves everything in the workspace (commits and uncommitted files) to `ref` in the project's repository, as a
   * commit with `message` (src/sessions/teardown.ts writes it). What `ref` held before stays reachable from it: a
   * rescue never drops an earlier one.
   */
  readonly rescue: (project: ProjectConfig, path: string, ref: string, message: string) => Effect.Effect<string, WorkspaceError>
  /**
   * Removes the workspace; with `deleteBranch`, also the branch (only ever one the session created). Also called when
   * the workspace's directory is gone (deleted by hand): what still names it (git's registration of a worktree) goes.
   */
  readonly destroy: (
    project: ProjectConfig,
    path: string,
    options: { readonly branch: string; readonly deleteBranch: boolean }
  ) => Effect.Effect<void, WorkspaceError>
}

/** A workspace of the in-memory workspace plugin: its branch and the work in it not saved anywhere else. */
/** `create` for a plugin that cannot tell its plan from inside: `hasBranch` first, the plan told, then the plain create. */
export const lookThenCreate = (
  hasBranch: WorkspaceShape["hasBranch"],
  create: (spec: WorkspaceSpec) => Effect.Effect<CreatedWorkspace, WorkspaceError>
): WorkspaceShape["create"] =>
<E>(spec: WorkspaceSpec, beforeMaking?: BeforeMaking<E>) =>
  beforeMaking === undefined
    ? create(spec)
    : hasBranch(spec.project, spec.branch).pipe(
      Effect.flatMap((has): Effect.Effect<void, WorkspaceError | E> => beforeMaking({ createdBranch: !has })),
      Effect.andThen(create(spec))
    )

export interface TestWorkspaceEntry {
  readonly projectId: string
  readonly branch: string
  unsaved: UnsavedWork
}

/** An in-memory workspace plugin for tests: workspaces and branches are entries in its record, rescues are logged. */
export interface TestWorkspace extends WorkspaceShape {
  readonly workspaces: Map<string, TestWorkspaceEntry>
  readonly branches: Set<string>
  readonly rescues: Array<{ readonly path: string; readonly ref: string; readonly commit: string }>
}

export const makeTestWorkspace = (branches: ReadonlyArray<string> = ["main"]): TestWorkspace => {
  const workspaces = new Map<string, TestWorkspaceEntry>()
  const known = new Set(branches)
  const rescues: Array<{ readonly path: string; readonly ref: string; readonly commit: string }> = []
  const fail = (operation: string, reason: string) => new WorkspaceError({ plugin: "test", operation, reason })
  const find = (operation: string, path: string) =>
    Effect.suspend(() => {
      const entry = workspaces.get(path)
      return entry === undefined ? Effect.fail(fail(operation, `no workspace at ${path}`)) : Effect.succeed(entry)
    })
  return {
    name: "test",
    workspaces,
    branches: known,
    rescues,
    create: <E>(spec: WorkspaceSpec, beforeMaking?: BeforeMaking<E>) =>
      Effect.suspend((): Effect.Effect<CreatedWorkspace, WorkspaceError | E> => {
        if (workspaces.has(spec.path)) return Effect.fail(fail("create", `${spec.path} already exists`))
        const createdBranch = !known.has(spec.branch)
        const make = Effect.sync(() => {
          known.add(spec.branch)
          workspaces.set(spec.path, { projectId: spec.project.id, branch: spec.branch, unsaved: { uncommitted: 0, unpushed: 0 } })
          return { path: spec.path, branch: spec.branch, createdBranch, warnings: [] }
        })
        return beforeMaking === undefined ? make : Effect.andThen(beforeMaking({ createdBranch }), make)
      }),
    exists: (path) => Effect.sync(() => workspaces.has(path)),
    hasBranch: (_project, branch) => Effect.sync(() => known.has(branch)),
    unsavedWork: (_project, path) => Effect.map(find("unsavedWork", path), (entry) => entry.unsaved),
    rescue: (_project, path, ref, _message) =>
      Effect.map(find("rescue", path), () => {
        const commit = `rescue-${rescues.length + 1}`
        rescues.push({ path, ref, commit })
        return commit
      }),
    destroy: (_project, path, options) =>
      Effect.sync(() => {
        workspaces.delete(path)
        if (options.deleteBranch) known.delete(options.branch)
      })
  }
}

export class Workspace extends Context.Service<Workspace, WorkspaceShape>()("orch/plugins/Workspace") {
  static readonly layerTest = (workspace: TestWorkspace = makeTestWorkspace()) => Layer.succeed(Workspace, workspace)
}
