/**
 * The files a session needs on the machine its agent runs on, as data: the spawn's prompt files, and what an
 * agent plugin prepares (Claude Code's hooks in `.claude/settings.local.json`, Codex's instructions file). Agents
 * say what they need (`AgentLaunch.files`); the spawn carries it out where the session's workspace is — here with
 * the file system, on a host through its connection (remote-files.ts) in two round trips at most: one
 * that reads what the updates start from, one that writes everything. `resolveEdits` is the pure middle.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs"
import { dirname, isAbsolute, join } from "node:path"
import { writeFileAtomic } from "../../store/files.ts"

export type FileEdit =
  /** `path` holds `content` (replaced atomically). */
  | { readonly _tag: "Write"; readonly path: string; readonly content: string }
  /**
   * `path` holds `update` of what `from` (default: `path` itself) holds, undefined when it does not exist. A `from`
   * that an earlier edit of the same batch writes is taken from that edit, not read.
   */
  | { readonly _tag: "Update"; readonly path: string; readonly from?: string; readonly update: (current: string | undefined) => string }
  /** The repository of the worktree at `workspace` ignores `pattern` (a line of its `info/exclude`), when it is a git worktree. */
  | { readonly _tag: "ExcludeFromGit"; readonly workspace: string; readonly pattern: string }

/** A file's whole new content, after `resolveEdits`. */
export interface FileWrite {
  readonly path: string
  readonly content: string
}

export interface ResolvedEdits {
  /** Every file to write, once each, in the order of their first edit. */
  readonly writes: ReadonlyArray<FileWrite>
  readonly excludes: ReadonlyArray<{ readonly workspace: string; readonly pattern: string }>
}

/** The files the edits start from that no earlier edit writes: what must be read from the machine first. */
export const filesToRead = (edits: ReadonlyArray<FileEdit>): ReadonlyArray<string> => {
  const written = new Set<string>()
  const reads: Array<string> = []
  for (const edit of edits) {
    if (edit._tag === "ExcludeFromGit") continue
    if (edit._tag === "Update") {
      const from = edit.from ?? edit.path
      if (!written.has(from) && !reads.includes(from)) reads.push(from)
    }
    written.add(edit.path)
  }
  return reads
}

/** Folds the edits over what the machine holds (`read`, for the files `filesToRead` names): the writes to make. */
export const resolveEdits = (edits: ReadonlyArray<FileEdit>, read: (path: string) => string | undefined): ResolvedEdits => {
  const contents = new Map<string, string>()
  const excludes: Array<{ readonly workspace: string; readonly pattern: string }> = []
  const current = (path: string) => (contents.has(path) ? contents.get(path) : read(path))
  for (const edit of edits) {
    if (edit._tag === "ExcludeFromGit") {
      if (!excludes.some((e) => e.workspace === edit.workspace && e.pattern === edit.pattern)) {
        excludes.push({ workspace: edit.workspace, pattern: edit.pattern })
      }
    } else {
      contents.set(edit.path, edit._tag === "Write" ? edit.content : edit.update(current(edit.from ?? edit.path)))
    }
  }
  return { writes: [...contents].map(([path, content]) => ({ path, content })), excludes }
}

/** `text` with `line` added as a line of its own, unless it has it already; undefined when it has. */
export const withLine = (text: string, line: string): string | undefined =>
  text.split("\n").includes(line) ? undefined : `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`

/** Adds `pattern` to the info/exclude of the repository `workspace` is a worktree of (nothing when it is none). */
const excludeLocally = (workspace: string, pattern: string) => {
  let common: string
  try {
    common = execFileSync("git", ["-C", workspace, "rev-parse", "--git-common-dir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  } catch {
    return // not a git workspace: nothing to keep clean
  }
  const exclude = join(isAbsolute(common) ? common : join(workspace, common), "info", "exclude")
  const current = existsSync(exclude) ? readFileSync(exclude, "utf8") : ""
  const added = withLine(current, pattern)
  if (added === undefined) return
  mkdirSync(dirname(exclude), { recursive: true })
  appendFileSync(exclude, added.slice(current.length))
}

/** Carries out `edits` on this machine. */
export const applyEditsLocally = (edits: ReadonlyArray<FileEdit>) =>
  Effect.gen(function*() {
    const resolved = yield* Effect.try({
      try: () => resolveEdits(edits, (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined)),
      catch: (cause) => cause instanceof Error ? cause.message : String(cause)
    })
    for (const write of resolved.writes) yield* Effect.mapError(writeFileAtomic(write.path, write.content), (error) => error.message)
    yield* Effect.try({
      try: () => resolved.excludes.forEach(({ workspace, pattern }) => excludeLocally(workspace, pattern)),
      catch: (cause) => cause instanceof Error ? cause.message : String(cause)
    })
  })
