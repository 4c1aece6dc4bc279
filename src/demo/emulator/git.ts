/**
 * The git the emulator does in a bare repository, as GitHub does it server-side: no clone, no worktree, no
 * push hook (a ref it moves itself is announced by the model, not by git).
 */
import { execFileSync, spawnSync } from "node:child_process"

export const ZERO_SHA = "0000000000000000000000000000000000000000"

/** Commits the emulator makes itself (update-branch merges, squash merges) are committed by "GitHub". */
const IDENTITY = ["-c", "user.name=GitHub", "-c", "user.email=noreply@github.com"]

export const git = (gitDir: string, ...args: Array<string>) =>
  execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

export const tryGit = (gitDir: string, ...args: Array<string>): string | undefined => {
  try {
    return git(gitDir, ...args)
  } catch {
    return undefined
  }
}

export const branchSha = (gitDir: string, branch: string) => tryGit(gitDir, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`)

/** Whether `ancestor` is reachable from `descendant` (the head has every commit of the base). */
export const isAncestor = (gitDir: string, ancestor: string, descendant: string): boolean => {
  const result = spawnSync("git", ["--git-dir", gitDir, "merge-base", "--is-ancestor", ancestor, descendant], { stdio: "ignore" })
  if (result.status === 0) return true
  if (result.status === 1) return false
  throw new Error(`git merge-base --is-ancestor ${ancestor} ${descendant} failed in ${gitDir} (exit ${result.status ?? result.signal})`)
}

/** The tree of merging two commits (`git merge-tree --write-tree`), or `conflicts` when they do not merge cleanly. */
export const mergeTree = (gitDir: string, ours: string, theirs: string): { readonly tree: string } | "conflicts" => {
  const result = spawnSync("git", ["--git-dir", gitDir, "merge-tree", "--write-tree", ours, theirs], { encoding: "utf8" })
  if (result.status === 0) return { tree: result.stdout.split("\n")[0]!.trim() }
  if (result.status === 1) return "conflicts"
  throw new Error(`git merge-tree ${ours} ${theirs} failed in ${gitDir}: ${(result.stderr ?? "").trim() || `exit ${result.status ?? result.signal}`}`)
}

export const commitTree = (gitDir: string, tree: string, parents: ReadonlyArray<string>, message: string) =>
  git(gitDir, ...IDENTITY, "commit-tree", tree, ...parents.flatMap((parent) => ["-p", parent]), "-m", message)

/** Moves a branch only if it is still at `from` (git's compare-and-swap): false when someone moved it first. */
export const moveBranch = (gitDir: string, branch: string, to: string, from: string): boolean =>
  tryGit(gitDir, "update-ref", `refs/heads/${branch}`, to, from) !== undefined

/** Every file path in a commit's tree. */
export const treeFiles = (gitDir: string, sha: string): Array<string> =>
  execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "--name-only", "-z", sha], { encoding: "utf8" }).split("\0").filter(Boolean)

/** A file's content at a commit, or undefined when the commit has no such file. */
export const readAt = (gitDir: string, sha: string, path: string): string | undefined => {
  const result = spawnSync("git", ["--git-dir", gitDir, "cat-file", "blob", `${sha}:${path}`], { encoding: "utf8" })
  return result.status === 0 ? result.stdout : undefined
}

export const commitMessage = (gitDir: string, sha: string) => tryGit(gitDir, "log", "-1", "--format=%B", sha) ?? ""
