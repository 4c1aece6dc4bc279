/**
 * Is the program a command line starts there to be started? `orch spawn` and `orch doctor` ask before anything
 * is made, so a missing agent is one clear sentence instead of a terminal whose pane died with status 127.
 */
import { accessSync, constants, statSync } from "node:fs"
import { delimiter, isAbsolute, join } from "node:path"

/** Words the shell runs itself: a command line starting with one of these names no program to look for. */
const SHELL_WORDS = new Set([
  ".",
  ":",
  "[",
  "alias",
  "break",
  "case",
  "cd",
  "command",
  "continue",
  "echo",
  "eval",
  "exit",
  "export",
  "false",
  "for",
  "if",
  "printf",
  "read",
  "return",
  "set",
  "shift",
  "test",
  "times",
  "trap",
  "true",
  "type",
  "ulimit",
  "umask",
  "unset",
  "until",
  "wait",
  "while",
  "{",
  "("
])

/**
 * The program a shell command line runs first, past variable assignments and `exec`/`env`/`nohup`; undefined when
 * the line starts with shell syntax or a built-in, so there is nothing to look up.
 */
export const programOf = (commandLine: string): string | undefined => {
  const words = commandLine.trim().split(/\s+/)
  for (const word of words) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || word === "exec" || word === "env" || word === "nohup") continue
    if (word === "" || SHELL_WORDS.has(word) || /[$`'"\\;&|<>(){}*?]/.test(word)) return undefined
    return word.startsWith("~/") ? undefined : word
  }
  return undefined
}

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export type ProgramLookup =
  | { readonly _tag: "Found"; readonly path: string }
  | { readonly _tag: "Missing"; readonly program: string; readonly reason: string }
  | { readonly _tag: "Unknown" }

/** Looks `program` up as the shell would: a path is checked as it is, a bare name in each PATH entry. */
export const findProgram = (program: string | undefined, path: string | undefined): ProgramLookup => {
  if (program === undefined) return { _tag: "Unknown" }
  if (program.includes("/")) {
    // A relative path is relative to the session's worktree, which does not exist yet.
    if (!isAbsolute(program)) return { _tag: "Unknown" }
    return isExecutableFile(program) ? { _tag: "Found", path: program } : { _tag: "Missing", program, reason: "no executable file there" }
  }
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue
    const candidate = join(dir, program)
    if (isExecutableFile(candidate)) return { _tag: "Found", path: candidate }
  }
  return { _tag: "Missing", program, reason: "not found on PATH" }
}
