/**
 * The git reads of conflict prediction, all on the project's repository (sessions' worktrees share its refs), none
 * in a worktree and none that changes a ref but the default branch's remote-tracking ref (a fetch, every five
 * minutes at most): the heads in one `git for-each-ref`, what a branch and the default branch
 * each changed since they parted in one `git log --left-right`, a merge in one `git merge-tree --write-tree` (it writes
 * objects, never a ref, the index or a worktree).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { statSync } from "node:fs"
import { join } from "node:path"
import { exec } from "../src/process/exec.ts"
import { type ConflictCache, mergesToRun, type ProjectHeads, type SideFiles, sidesKey, sidesToRead } from "./rules/conflict-pairs.ts"

export class ConflictReadFailed extends Schema.TaggedError<ConflictReadFailed>()("ConflictReadFailed", {
  repo: Schema.String,
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.operation} in ${this.repo} failed: ${this.reason}`
  }
}

const git = Effect.fnUntraced(function*(repo: string, args: ReadonlyArray<string>) {
  const operation = `git ${args[0]}`
  // Never a prompt for credentials (a fetch from a host that wants them fails instead), nor a lock taken on the index.
  const env = { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" }
  const result = yield* exec("git", ["-C", repo, ...args], { env, timeout: "60 seconds" }).pipe(
    Effect.mapError((error) => new ConflictReadFailed({ repo, operation, reason: error.reason }))
  )
  return { ...result, operation }
})

const failed = (repo: string, result: { readonly operation: string; readonly exitCode: number; readonly stderr: string }) =>
  new ConflictReadFailed({ repo, operation: result.operation, reason: result.stderr.trim().split("\n")[0] || `exit ${result.exitCode}` })

const lines = (text: string) => text.split("\n").map((line) => line.trim()).filter((line) => line !== "")

export interface RepositoryHeads {
  /**
   * The default branch's head: its remote-tracking ref (`origin/<default>`) when there is one, else the local branch.
   * PRs merge into the repohost's branch, and sessions start from `origin/<default>` (workspace/worktree.ts): the
   * local branch of the user's checkout may lag behind it or hold commits nobody pushed.
   */
  readonly defaultHead: string | undefined
  /** A session branch's head: the local branch (the agent's newest commit, pushed or not), else `origin/<branch>`. */
  readonly headOf: (branch: string) => string | undefined
}

/** Every head a round needs, in one git process. */
export const readHeads = Effect.fnUntraced(function*(repo: string, defaultBranch: string, branches: ReadonlyArray<string>) {
  const refsOf = (branch: string) => [`refs/heads/${branch}`, `refs/remotes/origin/${branch}`]
  const result = yield* git(repo, ["for-each-ref", "--format=%(objectname) %(refname)", ...refsOf(defaultBranch), ...branches.flatMap(refsOf)])
  if (result.exitCode !== 0) return yield* failed(repo, result)
  const shas = new Map(
    lines(result.stdout).map((line) => {
      const [sha = "", ref = ""] = line.split(" ")
      return [ref, sha] as const
    })
  )
  const headOf = (branch: string) => shas.get(`refs/heads/${branch}`) ?? shas.get(`refs/remotes/origin/${branch}`)
  return {
    defaultHead: shas.get(`refs/remotes/origin/${defaultBranch}`) ?? shas.get(`refs/heads/${defaultBranch}`),
    headOf
  } satisfies RepositoryHeads
})

/**
 * What `head` (own) and `defaultHead` (base) each changed since they parted: the files of their commits, renames as
 * a delete and an add; and the branch's own commits.
 */
export const readSides = Effect.fnUntraced(function*(repo: string, defaultHead: string, head: string) {
  const result = yield* git(repo, ["log", "--left-right", "--no-renames", "--format=%m %H", "--name-only", `${defaultHead}...${head}`])
  if (result.exitCode !== 0) return yield* failed(repo, result)
  const own = new Set<string>()
  const base = new Set<string>()
  const commits: Array<string> = []
  let side = own
  for (const line of lines(result.stdout)) {
    const commit = /^([<>]) ([0-9a-f]{40,64})$/.exec(line)
    if (commit === null) side.add(line)
    else if (commit[1] === "<") side = base
    else {
      side = own
      commits.push(commit[2]!)
    }
  }
  return { own: [...own].sort(), base: [...base].sort(), commits } satisfies SideFiles
})

/** Whether `ours` and `theirs` merge cleanly: the files git could not merge (none when they do). */
export const mergeTree = Effect.fnUntraced(function*(repo: string, ours: string, theirs: string) {
  const result = yield* git(repo, ["merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs])
  if (result.exitCode === 0) return { conflicted: [] }
  if (result.exitCode === 129) {
    return yield* new ConflictReadFailed({
      repo,
      operation: result.operation,
      reason: "this git has no `merge-tree --write-tree`: conflict prediction needs git 2.38 or newer"
    })
  }
  if (result.exitCode !== 1) return yield* failed(repo, result)
  // The first line is the merged tree's id; then a file git could not merge per line (a file with conflicting stages repeats).
  return { conflicted: [...new Set(lines(result.stdout).slice(1))].sort() }
})

/**
 * How often a round brings the default branch up to date from origin: PRs merge on the repohost, and nothing else
 * fetches here between spawns. A fetch by anyone (a spawn's, yours) within this time serves. Five minutes keeps a
 * supervisor at rest to a fraction of a process a minute for it per project.
 */
export const DEFAULT_BRANCH_FETCH_MS = 5 * 60_000

/**
 * What the refs a round reads look like on disk, without a process: each ref file's identity (a ref moves by a
 * rename, so its inode and time change) and packed-refs'. Equal stamps mean equal heads; undefined where the
 * repository's refs are not in `<path>/.git` (a worktree or a gitfile: every round reads them).
 */
export const refsStamp = (repo: string, defaultBranch: string, sessions: ReadonlyArray<{ readonly sessionId: string; readonly branch: string }>) => {
  const gitDir = join(repo, ".git")
  if (!statOf(gitDir)?.isDirectory()) return undefined
  const refs = ["packed-refs", `refs/heads/${defaultBranch}`, `refs/remotes/origin/${defaultBranch}`, ...sessions.map((s) => `refs/heads/${s.branch}`)]
  const files = refs.map((ref) => {
    const stat = statOf(join(gitDir, ref))
    return stat === undefined ? "-" : `${stat.ino}:${stat.mtimeMs}:${stat.size}`
  })
  return JSON.stringify([sessions.map((s) => `${s.sessionId}=${s.branch}`), files])
}

const statOf = (path: string) => {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

/** `git fetch origin <branch>`: undefined when it fetched (or the repository has no origin), else why not. */
export const fetchDefaultBranch = Effect.fnUntraced(function*(repo: string, branch: string) {
  const result = yield* git(repo, ["fetch", "--quiet", "origin", branch])
  if (result.exitCode === 0 || /'origin' does not appear to be a git repository|No such remote/i.test(result.stderr)) return undefined
  return `git fetch origin ${branch} in ${repo} failed: ${result.stderr.trim().split("\n")[0] || `exit ${result.exitCode}`}`
})

export interface ProjectRead {
  readonly heads: ProjectHeads
  /** The cache with what this read added. */
  readonly cache: ConflictCache
  /** How many git processes it ran. */
  readonly gitRuns: number
}

/**
 * A project's heads, and the sides and merges its changed heads need (what `cache` does not have yet): one
 * `for-each-ref`, a `log` per session whose head (or the default branch's) moved, a `merge-tree` per new pair of
 * heads that changed a file in common. Sessions whose branch is not in the repository are left out.
 */
export const readProject = Effect.fnUntraced(function*(
  project: { readonly id: string; readonly path: string; readonly defaultBranch: string },
  sessions: ReadonlyArray<{ readonly sessionId: string; readonly branch: string }>,
  cache: ConflictCache
) {
  const read = yield* readHeads(project.path, project.defaultBranch, sessions.map((s) => s.branch))
  if (read.defaultHead === undefined) {
    return yield* new ConflictReadFailed({
      repo: project.path,
      operation: "reading the default branch",
      reason: `it has no branch ${project.defaultBranch} (set defaultBranch in the project)`
    })
  }
  const heads: ProjectHeads = {
    projectId: project.id,
    defaultBranch: { branch: project.defaultBranch, head: read.defaultHead },
    sessions: sessions.flatMap((s) => {
      const head = read.headOf(s.branch)
      return head === undefined ? [] : [{ sessionId: s.sessionId, branch: s.branch, head }]
    })
  }
  let gitRuns = 1
  const sides = new Map(cache.sides)
  for (const session of sidesToRead(heads, cache)) {
    // A branch still at the default branch's head (a session that has committed nothing yet) changed nothing: no git.
    if (session.head === heads.defaultBranch.head) {
      sides.set(sidesKey(session.head, session.head), { own: [], base: [], commits: [] })
      continue
    }
    sides.set(sidesKey(heads.defaultBranch.head, session.head), yield* readSides(project.path, heads.defaultBranch.head, session.head))
    gitRuns++
  }
  const withSides = { ...cache, sides }
  const merges = new Map(cache.merges)
  for (const job of mergesToRun(heads, withSides)) {
    merges.set(job.key, yield* mergeTree(project.path, job.a.head, job.b.head))
    gitRuns++
  }
  return { heads, cache: { sides, merges }, gitRuns } satisfies ProjectRead
})
