/** A project repository for tests: a bare `origin` and a clone with one commit on `main`, in a temp dir. */
import * as Effect from "effect/Effect"
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"

export const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

export const gitOk = (cwd: string, ...args: Array<string>) => {
  try {
    git(cwd, ...args)
    return true
  } catch {
    return false
  }
}

export const makeRepo = (root: string, name = "app") => {
  const origin = join(root, `${name}-origin.git`)
  const path = join(root, name)
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  mkdirSync(path, { recursive: true })
  execFileSync("git", ["init", "-q", "-b", "main", path])
  git(path, "config", "user.email", "dev@example.com")
  git(path, "config", "user.name", "Dev")
  writeFileSync(join(path, "README.md"), `# ${name}\n`)
  git(path, "add", ".")
  git(path, "commit", "-qm", "initial")
  git(path, "remote", "add", "origin", origin)
  git(path, "push", "-q", "origin", "main")
  return { origin, path }
}

/**
 * `git` without blocking the event loop: needed for a push to a repository the in-process repohost emulator
 * serves, whose post-receive hook calls back into this process.
 */
export const gitAsync = (cwd: string, ...args: Array<string>) =>
  Effect.promise(() => promisify(execFile)("git", ["-C", cwd, ...args], { encoding: "utf8" }).then(({ stdout }) => stdout.trim()))
