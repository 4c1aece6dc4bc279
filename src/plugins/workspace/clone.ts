/**
 * Workspace `clone`: a fresh `git clone` of the project (its `origin` when it has one, else the local
 * repository) on branch `feat/<issue>`. Nothing is shared with the project's repository, so rescued work is
 * fetched into it explicitly.
 */
import * as Effect from "effect/Effect"
import { ChildProcessSpawner } from "effect/process"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { dirname } from "node:path"
import type { ProjectConfig } from "../../config/schema.ts"
import { makeGit } from "./git.ts"
import type { BeforeMaking, CreatedWorkspace, WorkspaceShape, WorkspaceSpec } from "./Workspace.ts"
import { countUnsaved, existingRefs, finishWorkspace, resolveBase, saveToRescueRef } from "./worktree.ts"

const PLUGIN = "clone"

export const makeCloneWorkspace = Effect.fnUntraced(function*() {
  const git = yield* makeGit(PLUGIN)
  const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()

  const source = Effect.fnUntraced(function*(project: ProjectConfig) {
    const origin = yield* git.run(project.path, ["remote", "get-url", "origin"])
    return origin.exitCode === 0 ? origin.stdout.trim() : project.path
  })

  const destroy: WorkspaceShape["destroy"] = (_project, path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))

  // A clone's branch is its own, never the project's: there is nothing to delete on undo.
  const create = Effect.fn("Workspace.clone.create")(function*<E>(spec: WorkspaceSpec, beforeMaking?: BeforeMaking<E>) {
    const { project, branch, path } = spec
    if (beforeMaking !== undefined) yield* beforeMaking({ createdBranch: false })
    rmSync(path, { recursive: true, force: true })
    mkdirSync(dirname(path), { recursive: true })
    yield* git.ok(dirname(path), ["clone", "--quiet", yield* source(project), path], { timeout: "10 minutes" })
    const refs = yield* existingRefs(git, path, [
      `refs/remotes/origin/${branch}`,
      `refs/heads/${project.defaultBranch}`,
      `refs/remotes/origin/${project.defaultBranch}`
    ])
    const reuse = refs.has(`refs/remotes/origin/${branch}`)
    yield* git.ok(path, ["checkout", "--quiet", "-b", branch, reuse ? `origin/${branch}` : yield* resolveBase(refs, path, project.defaultBranch)])
    yield* finishWorkspace(project, path).pipe(
      Effect.provide(context),
      Effect.tapError(() => destroy(project, path, { branch, deleteBranch: false }))
    )
    return { path, branch, createdBranch: false, warnings: [] } satisfies CreatedWorkspace
  })

  const rescue: WorkspaceShape["rescue"] = Effect.fn("Workspace.clone.rescue")(function*(project, path, ref, message) {
    // An earlier rescue lives in the project's repository: bring it into the clone, so the new one keeps it.
    if (yield* git.exists(project.path, ref)) yield* git.ok(path, ["fetch", "--quiet", project.path, `+${ref}:${ref}`])
    const commit = yield* saveToRescueRef(git, path, ref, message)
    yield* git.ok(project.path, ["fetch", "--quiet", path, `+${ref}:${ref}`])
    return commit
  })

  return {
    name: PLUGIN,
    create,
    exists: (path) => Effect.sync(() => existsSync(path)),
    hasBranch: () => Effect.succeed(false),
    unsavedWork: (project, path) => countUnsaved(git, project, path),
    rescue,
    destroy
  } satisfies WorkspaceShape
})
