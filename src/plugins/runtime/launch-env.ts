/**
 * An agent's environment handed to its shell through a file, not its command line: a command line is readable by
 * every user (`ps`, /proc/<pid>/cmdline), and the environment carries secrets (API keys, `${VAR}` tokens). The file
 * is made mode 0600 in a fresh 0700 directory, read by the launch line, and deleted before the agent starts.
 */
import { createHash } from "node:crypto"
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { shellQuote } from "../../process/shell-quote.ts"

/** Names a POSIX shell can set; others (bash's exported functions, `BASH_FUNC_f%%`) cannot reach an agent through sh. */
export const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export interface EnvFile {
  readonly dir: string
  readonly file: string
  /** Names left out: a shell cannot set them. */
  readonly skipped: ReadonlyArray<string>
}

/**
 * Named by the session and its working directory: session ids repeat across orch's data dirs (every project `app`
 * has an `app-orchestrator`), and TMPDIR is shared, so removing one data dir's left files never touches another's.
 */
const envDirPrefix = (sessionId: string, workingDir: string) => `orch-env-${sessionId}-${createHash("sha256").update(workingDir).digest("hex").slice(0, 12)}-`

/**
 * Writes `env` as `export NAME='value'` lines to a new file only this user can read, in a directory named by the
 * session (a spawn killed before its shell read the file leaves it for the undo to remove: `removeLeftEnvFiles`).
 * Throws what the file system threw.
 */
export const writeEnvFile = (env: Readonly<Record<string, string>>, sessionId: string, workingDir: string): EnvFile => {
  const entries = Object.entries(env)
  const skipped = entries.filter(([name]) => !SHELL_NAME.test(name)).map(([name]) => name)
  const text = entries.filter(([name]) => SHELL_NAME.test(name)).map(([name, value]) => `export ${name}=${shellQuote(value)}\n`).join("")
  const dir = mkdtempSync(join(tmpdir(), envDirPrefix(sessionId, workingDir)))
  const file = join(dir, "env")
  try {
    // `wx`: made here, never an existing file; 0600 from its first byte.
    writeFileSync(file, text, { mode: 0o600, flag: "wx" })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return { dir, file, skipped }
}

/** The shell line that reads the file, deletes it, then runs `command` without the `unset` variables. */
export const launchLine = (envFile: EnvFile, unset: ReadonlyArray<string>, command: string): string =>
  `. ${shellQuote(envFile.file)}; rm -f ${shellQuote(envFile.file)}; rmdir ${shellQuote(envFile.dir)}; ${
    unset.length > 0 ? `unset ${unset.join(" ")}; ` : ""
  }${command}`

export const removeEnvFile = (envFile: EnvFile): void => rmSync(envFile.dir, { recursive: true, force: true })

/**
 * Removes the environment files a start of `sessionId` in `workingDir` killed before its agent's shell read them left
 * on this machine.
 */
export const removeLeftEnvFiles = (sessionId: string, workingDir: string): void => {
  const prefix = envDirPrefix(sessionId, workingDir)
  for (const name of readdirSync(tmpdir()).filter((entry) => entry.startsWith(prefix))) {
    rmSync(join(tmpdir(), name), { recursive: true, force: true })
  }
}

/**
 * Removes the environment files of any session left on this machine for longer than `olderThanMs` (a shell reads its
 * file within moments of tmux starting it): those of starts killed before their shell ran (a restore, an
 * orchestrator's start) that nothing else undoes. Answers how many went.
 */
export const removeStaleEnvFiles = (olderThanMs: number, now: number): number =>
  readdirSync(tmpdir()).filter((entry) => entry.startsWith("orch-env-")).filter((entry) => {
    const dir = join(tmpdir(), entry)
    const stat = statSync(dir, { throwIfNoEntry: false })
    if (stat === undefined || now - stat.mtimeMs < olderThanMs) return false
    rmSync(dir, { recursive: true, force: true })
    return true
  }).length
