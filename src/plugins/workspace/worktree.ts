/**
 * Workspace `worktree`: a git worktree of the project on branch `feat/<issue>`, from `origin/<defaultBranch>`
 * when there is one (fetched first), else the local default branch. Git steps on one project run under a
 * lock shared by every orch process, so parallel spawns never trip over git's own locks.
 */
import * as Effect from "effect/Effect"
import { ChildProcessSpawner } from "effect/process"
import * as Semaphore from "effect/Semaphore"
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { ProjectConfig } from "../../config/schema.ts"
import { exec } from "../../process/exec.ts"
import { atCrashPoint } from "../../store/crash-points.ts"
import { StoreError } from "../../store/errors.ts"
import { LockTimeout, withLock } from "../../store/lock.ts"
import { fetchedRecently } from "./fetch-window.ts"
import { type Git, makeGit } from "./git.ts"
import { refsFromFiles } from "./ref-files.ts"
import { type BeforeMaking, type CreatedWorkspace, WorkspaceError, type WorkspaceShape, type WorkspaceSpec } from "./Workspace.ts"

const PLUGIN = "worktree"
const RESCUE_IDENTITY = {
  GIT_AUTHOR_NAME: "orch",
  GIT_AUTHOR_EMAIL: "orch@localhost",
  GIT_COMMITTER_NAME: "orch",
  GIT_COMMITTER_EMAIL: "orch@localhost"
}

/** Which of `refs` exist: read from the ref files, or with one git call where they cannot tell (ref-files.ts). */
export const existingRefs = Effect.fnUntraced(function*(git: Git, repo: string, refs: ReadonlyArray<string>) {
  const fromFiles = refsFromFiles(repo, refs)
  if (fromFiles !== undefined) return fromFiles
  const listed = yield* git.ok(repo, ["for-each-ref", "--format=%(refname)", ...refs])
  return new Set(listed.split("\n").filter(Boolean))
})

/**
 * A branch git cannot make is the work's own problem, not this machine's: a name it refuses, or one beside a branch
 * whose name is a folder of it (or the other way round: `feat` and `feat/2`), since git keeps a branch as a file
 * under refs/heads/ (`git worktree add -b` then fails with "cannot lock ref"). The latter is said in words, with
 * what to do.
 */
export const unusableBranch = (error: WorkspaceError): WorkspaceError => {
  if (/is not a valid branch name/.test(error.reason)) return new WorkspaceError({ ...error, branchUnusable: true })
  const clash = /'refs\/heads\/([^']+)' exists; cannot create 'refs\/heads\/([^']+)'/.exec(error.reason)
  if (clash === null) return error
  const [, existing, wanted] = clash
  // Said as the create's failure ("worktree: create: branch …"), not git's command's ("worktree: git worktree: …").
  return new WorkspaceError({
    ...error,
    operation: "create",
    reason: `branch ${wanted} cannot be made: the branch ${existing} exists, and git cannot keep a branch whose name is a folder of ` +
      `another's; rename or delete ${existing} (\`git branch -m ${existing} <new name>\`) and spawn again`,
    branchUnusable: true
  })
}

/** The commit that starts a session's branch: `origin/<default>` when it exists, else the local default branch. */
export const resolveBase = (refs: ReadonlySet<string>, repo: string, defaultBranch: string) =>
  refs.has(`refs/remotes/origin/${defaultBranch}`)
    ? Effect.succeed(`origin/${defaultBranch}`)
    : refs.has(`refs/heads/${defaultBranch}`)
    ? Effect.succeed(defaultBranch)
    : Effect.fail(
      new WorkspaceError({
        plugin: PLUGIN,
        operation: "create",
        reason: `default branch "${defaultBranch}" not found in ${repo} (set defaultBranch in the project)`
      })
    )

/**
 * Fetches the default branch from `origin`, when the project has one and no fetch of it served moments ago
 * (fetch-window.ts). A failed fetch is a warning, not a stop.
 */
export const fetchDefaultBranch = Effect.fnUntraced(function*(git: Git, project: ProjectConfig) {
  if (yield* fetchedRecently(project.path, project.defaultBranch)) return []
  const fetched = yield* git.run(project.path, ["fetch", "--quiet", "origin", project.defaultBranch])
  if (fetched.exitCode === 0 || /'origin' does not appear to be a git repository|No such remote/i.test(fetched.stderr)) return []
  return [`git fetch origin ${project.defaultBranch} failed, using what is local: ${fetched.stderr.trim().split("\n")[0]}`]
})

/** Links `symlinks` from the project into the workspace and runs `postCreate` there. */
export const finishWorkspace = Effect.fnUntraced(function*(project: ProjectConfig, path: string) {
  for (const link of project.symlinks) {
    const source = join(project.path, link)
    const target = join(path, link)
    if (!existsSync(source)) continue
    yield* Effect.try({
      try: () => {
        mkdirSync(dirname(target), { recursive: true })
        if (existsSync(target) || lstatSync(target, { throwIfNoEntry: false })) rmSync(target, { recursive: true, force: true })
        symlinkSync(source, target)
      },
      catch: (cause) => new WorkspaceError({ plugin: PLUGIN, operation: `symlink ${link}`, reason: String(cause) })
    })
  }
  for (const command of project.postCreate) {
    const result = yield* exec("/bin/sh", ["-c", command], { cwd: path, timeout: "10 minutes" }).pipe(
      Effect.mapError((error) => new WorkspaceError({ plugin: PLUGIN, operation: `postCreate "${command}"`, reason: error.reason }))
    )
    if (result.exitCode !== 0) {
      const output = `${result.stderr}${result.stdout}`.trim().split("\n").slice(-3).join(" ")
      return yield* new WorkspaceError({
        plugin: PLUGIN,
        operation: `postCreate "${command}"`,
        reason: `exit ${result.exitCode}${output ? `: ${output}` : ""}`
      })
    }
  }
})

/** Counts what would be lost if the workspace went away now. */
export const countUnsaved = Effect.fnUntraced(function*(git: Git, project: ProjectConfig, path: string) {
  const status = yield* git.ok(path, ["status", "--porcelain", "--untracked-files=all"])
  const saved = (yield* git.exists(path, `refs/heads/${project.defaultBranch}`)) ? [`refs/heads/${project.defaultBranch}`] : []
  const unpushed = yield* git.ok(path, ["rev-list", "--count", "HEAD", "--not", "--remotes", ...saved])
  return { uncommitted: status === "" ? 0 : status.split("\n").length, unpushed: Number(unpushed) }
})

/**
 * One commit holding the workspace exactly as it is (tracked, untracked, staged or not), on top of HEAD, with
 * `message`. An `earlier` commit to keep (a previous rescue) becomes its second parent, so it stays reachable.
 */
export const snapshotCommit = Effect.fnUntraced(function*(git: Git, path: string, message: string, earlier?: string) {
  const env = { ...RESCUE_IDENTITY, GIT_INDEX_FILE: join(tmpdir(), `orch-index-${process.pid}-${Date.now()}`) }
  try {
    yield* git.ok(path, ["read-tree", "HEAD"], { env })
    yield* git.ok(path, ["add", "-A"], { env })
    const tree = yield* git.ok(path, ["write-tree"], { env })
    const head = yield* git.ok(path, ["rev-parse", "HEAD"])
    const headTree = yield* git.ok(path, ["rev-parse", "HEAD^{tree}"])
    if (earlier === undefined && tree === headTree) return head
    return yield* git.ok(path, ["commit-tree", tree, "-p", head, ...(earlier !== undefined ? ["-p", earlier] : []), "-m", message], { env })
  } finally {
    rmSync(env.GIT_INDEX_FILE, { force: true })
  }
})

/**
 * Saves the workspace to `ref` without ever losing what `ref` held: an earlier rescue that the workspace's HEAD
 * does not already contain is kept as the new commit's second parent (session killed, restored, killed again).
 */
export const saveToRescueRef = Effect.fnUntraced(function*(git: Git, path: string, ref: string, message: string) {
  const previous = yield* git.run(path, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])
  const earlier = previous.exitCode === 0 ? previous.stdout.trim() : undefined
  const contained = earlier !== undefined && (yield* git.run(path, ["merge-base", "--is-ancestor", earlier, "HEAD"])).exitCode === 0
  const commit = yield* snapshotCommit(git, path, message, contained ? undefined : earlier)
  yield* atCrashPoint("git update-ref rescue: before")
  yield* git.ok(path, ["update-ref", ref, commit, ...(earlier !== undefined ? [earlier] : [])])
  yield* atCrashPoint("git update-ref rescue: after")
  return commit
})

export const makeWorktreeWorkspace = Effect.fnUntraced(function*(locksDir: string) {
  const git = yield* makeGit(PLUGIN)
  const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
  /**
   * This process's spawns take turns at a project's repository in line, each handed on the moment the one before is
   * done; the lock file (polled every 20 ms) is what keeps other processes out.
   */
  const turns = new Map<string, Semaphore.Semaphore>()
  const turnAt = (projectId: string) => {
    const existing = turns.get(projectId)
    if (existing !== undefined) return existing
    const made = Semaphore.makeUnsafe(1)
    turns.set(projectId, made)
    return made
  }

  const removeWorktree = Effect.fnUntraced(function*(project: ProjectConfig, path: string) {
    if (existsSync(path)) {
      yield* atCrashPoint("git worktree remove: before")
      const removed = yield* git.run(project.path, ["worktree", "remove", "--force", "--force", path])
      if (removed.exitCode !== 0) rmSync(path, { recursive: true, force: true })
      yield* atCrashPoint("git worktree remove: after")
    }
    yield* git.run(project.path, ["worktree", "prune"])
  })

  const destroy: WorkspaceShape["destroy"] = Effect.fn("Workspace.worktree.destroy")(function*(project, path, options) {
    yield* removeWorktree(project, path)
    // A branch already gone (a spawn killed before it made it) is not a failure; one git will not delete is.
    if (options.deleteBranch && (yield* git.exists(project.path, `refs/heads/${options.branch}`))) {
      yield* atCrashPoint("git branch -D: before")
      yield* git.ok(project.path, ["branch", "-D", options.branch])
      yield* atCrashPoint("git branch -D: after")
    }
  })

  const checkedOutAt = Effect.fnUntraced(function*(project: ProjectConfig, branch: string) {
    const list = yield* git.ok(project.path, ["worktree", "list", "--porcelain"])
    let current: string | undefined
    for (const line of list.split("\n")) {
      if (line.startsWith("worktree ")) current = line.slice("worktree ".length)
      if (line === `branch refs/heads/${branch}`) return current
    }
    return undefined
  })

  /**
   * `git worktree add`, pruning a stale registration of the same path (its directory deleted by hand) once. git
   * makes a `-b` branch before it finds the path taken, so the second try checks out that branch (`retryArgs`).
   */
  const worktreeAdd = (project: ProjectConfig, args: ReadonlyArray<string>, retryArgs = args) =>
    atCrashPoint("git worktree add: before").pipe(
      Effect.andThen(git.ok(project.path, ["worktree", "add", "--quiet", ...args])),
      Effect.catchIf(
        (error) => /already registered|already exists/.test(error.reason),
        (error) =>
          Effect.andThen(
            git.run(project.path, ["worktree", "prune"]),
            git.ok(project.path, ["worktree", "add", "--quiet", ...(/already registered/.test(error.reason) ? retryArgs : args)])
          )
      ),
      Effect.mapError(unusableBranch),
      Effect.tap(() => atCrashPoint("git worktree add: after"))
    )

  const addWorktree = Effect.fnUntraced(function*<E>(spec: WorkspaceSpec, beforeMaking: BeforeMaking<E>) {
    const { project, branch, path } = spec
    const warnings = yield* fetchDefaultBranch(git, project)
    // A worktree left by a spawn that died half-way is cleared before its path is used again.
    if (existsSync(path)) yield* removeWorktree(project, path)
    mkdirSync(dirname(path), { recursive: true })
    const refs = yield* existingRefs(git, project.path, [
      `refs/heads/${branch}`,
      `refs/heads/${project.defaultBranch}`,
      `refs/remotes/origin/${project.defaultBranch}`
    ])
    if (refs.has(`refs/heads/${branch}`)) {
      let elsewhere = yield* checkedOutAt(project, branch)
      // A worktree whose directory was deleted by hand still holds its branch in git's eyes until pruned.
      if (elsewhere !== undefined && !existsSync(elsewhere)) {
        yield* git.run(project.path, ["worktree", "prune"])
        elsewhere = yield* checkedOutAt(project, branch)
      }
      if (elsewhere !== undefined) {
        return yield* new WorkspaceError({
          plugin: PLUGIN,
          operation: "create",
          reason: `branch ${branch} is already checked out at ${elsewhere}`,
          branchUnusable: true
        })
      }
      yield* beforeMaking({ createdBranch: false })
      yield* worktreeAdd(project, [path, branch])
      return { path, branch, createdBranch: false, warnings } satisfies CreatedWorkspace
    }
    const base = yield* resolveBase(refs, project.path, project.defaultBranch)
    yield* beforeMaking({ createdBranch: true })
    yield* worktreeAdd(project, ["--no-track", "-b", branch, path, base], [path, branch])
    return { path, branch, createdBranch: true, warnings } satisfies CreatedWorkspace
  })

  const create = Effect.fn("Workspace.worktree.create")(function*<E = never>(spec: WorkspaceSpec, beforeMaking?: BeforeMaking<E>) {
    const created = yield* addWorktree(spec, beforeMaking ?? (() => Effect.void)).pipe(
      withLock(locksDir, `git-${spec.project.id}`),
      turnAt(spec.project.id).withPermits(1),
      Effect.mapError((error) =>
        error instanceof LockTimeout || error instanceof StoreError ? new WorkspaceError({ plugin: PLUGIN, operation: "create", reason: error.message }) : error
      )
    )
    yield* finishWorkspace(spec.project, created.path).pipe(
      Effect.provide(context),
      Effect.catch((error) =>
        destroy(spec.project, created.path, { branch: created.branch, deleteBranch: created.createdBranch }).pipe(
          Effect.catch((undone) =>
            Effect.fail(
              new WorkspaceError({
                plugin: error.plugin,
                operation: error.operation,
                reason: `${error.reason}; and it could not remove the worktree: ${undone.message}`
              })
            )
          ),
          Effect.andThen(Effect.fail(error))
        )
      )
    )
    return created
  })

  const rescue: WorkspaceShape["rescue"] = Effect.fn("Workspace.worktree.rescue")(function*(_project, path, ref, message) {
    return yield* saveToRescueRef(git, path, ref, message)
  })

  return {
    name: PLUGIN,
    create,
    exists: (path) => Effect.sync(() => existsSync(path)),
    hasBranch: (project, branch) => git.exists(project.path, `refs/heads/${branch}`),
    unsavedWork: (project, path) => countUnsaved(git, project, path),
    rescue,
    destroy
  } satisfies WorkspaceShape
})
