/**
 * Files on a host, for the sessions that run there (the workspace's `files`): orch's data dir there, resolved to an
 * absolute path once, and edits (src/plugins/workspace/file-edits.ts) made in two round trips at most: one reading
 * the files the updates start from, one writing everything. Contents travel base64-encoded inside the script (its
 * stdin), so no byte of them needs quoting and none is on a command line. Files are replaced atomically (a temporary
 * file, then `mv`).
 */
import * as Effect from "effect/Effect"
import { dataDirWord } from "../../hosts/headroom.ts"
import type { HostConnectionsShape } from "../../hosts/HostConnections.ts"
import { shellQuote } from "../../process/shell-quote.ts"
import { type FileEdit, filesToRead, type ResolvedEdits, resolveEdits } from "./file-edits.ts"
import { WorkspaceError, type WorkspaceFiles } from "./Workspace.ts"

const q = shellQuote
/** A script's own "cannot go on" exit, its reason on stderr. */
const REFUSED = 92

/** Prints "@data <absolute path>" of the data dir, made when missing. */
export const dataDirScript = (dataDir: string) =>
  `d=${dataDirWord(dataDir)}\nmkdir -p "$d" && cd "$d" || { echo "orch's data dir $d cannot be made" >&2; exit ${REFUSED}; }\necho "@data $(pwd -P)"\n`

export const parseDataDir = (stdout: string): string | undefined => /^@data (\/.*)$/m.exec(stdout)?.[1]

/** Prints, for each path in order, "@file 0" (missing) or "@file 1" and its content in base64 on one line. */
export const readScript = (paths: ReadonlyArray<string>) =>
  paths.map((path) => `if [ -f ${q(path)} ]; then echo "@file 1"; base64 < ${q(path)} | tr -d '\\n'; echo; else echo "@file 0"; fi\n`).join("")

/** What a read script printed: each path's content, undefined when missing; undefined when the answer is cut short. */
export const parseRead = (paths: ReadonlyArray<string>, stdout: string): ReadonlyMap<string, string | undefined> | undefined => {
  const lines = stdout.split("\n")
  const contents = new Map<string, string | undefined>()
  let at = 0
  for (const path of paths) {
    const head = lines[at++]
    if (head === "@file 0") contents.set(path, undefined)
    else if (head === "@file 1" && at < lines.length) contents.set(path, Buffer.from(lines[at++]!, "base64").toString("utf8"))
    else return undefined
  }
  return contents
}

const base64Lines = (text: string) => (Buffer.from(text, "utf8").toString("base64").match(/.{1,76}/g) ?? []).join("\n")

/** Writes every file (directories made, replaced atomically) and adds the exclude lines, stopping at the first failure. */
export const writeScript = (resolved: ResolvedEdits) => {
  const writes = resolved.writes.map(({ path, content }) => {
    const fail = `{ rm -f "$tmp"; echo ${q(`${path} cannot be written`)} >&2; exit ${REFUSED}; }`
    return `tmp=${q(path)}.orch-$$.tmp\nmkdir -p "$(dirname ${q(path)})" || ${fail}\nbase64 -d > "$tmp" <<'ORCH_B64'\n${
      base64Lines(content)
    }\nORCH_B64\n[ $? -eq 0 ] && mv -f "$tmp" ${q(path)} || ${fail}\n`
  })
  const excludes = resolved.excludes.map(({ workspace, pattern }) =>
    `if common=$(git -C ${q(workspace)} rev-parse --git-common-dir 2>/dev/null); then
case $common in /*) ;; *) common=${q(workspace)}/$common;; esac
ex="$common"/info/exclude
mkdir -p "$(dirname "$ex")" || { echo "$ex cannot be made" >&2; exit ${REFUSED}; }
if ! { [ -f "$ex" ] && grep -qxF ${q(pattern)} "$ex"; }; then
if [ -s "$ex" ] && [ -n "$(tail -c 1 "$ex")" ]; then echo >> "$ex"; fi
printf '%s\\n' ${q(pattern)} >> "$ex" || { echo "$ex cannot be written" >&2; exit ${REFUSED}; }
fi
fi
`
  )
  return [...writes, ...excludes].join("")
}

export interface RemoteFiles extends WorkspaceFiles {
  /** The data dir's absolute path, when another round trip's answer told it (the workspace's create does). */
  readonly learn: (path: string) => void
}

export const makeRemoteFiles = (connections: HostConnectionsShape, host: string, dataDir = "~/.orchestrator"): RemoteFiles => {
  const failed = (operation: string) => (reason: string) => new WorkspaceError({ plugin: "worktree", operation, reason: `on host ${host}: ${reason}` })
  const script = (operation: string, text: string) =>
    connections.run(host, text, { timeout: "1 minute" }).pipe(
      Effect.mapError((error) => failed(operation)(error.message)),
      Effect.flatMap((result) =>
        result.exitCode === 0
          ? Effect.succeed(result.stdout)
          : Effect.fail(failed(operation)(result.stderr.trim().split("\n").at(-1) || `exit ${result.exitCode}`))
      )
    )
  /** Resolved once per workspace plugin (a procedure's), then known. */
  let resolved: string | undefined
  const resolveDataDir = Effect.suspend(() =>
    resolved !== undefined ? Effect.succeed(resolved) : script("finding the data dir", dataDirScript(dataDir)).pipe(
      Effect.flatMap((out) => {
        const path = parseDataDir(out)
        if (path === undefined) return Effect.fail(failed("finding the data dir")("the host's answer named no directory"))
        resolved = path
        return Effect.succeed(path)
      })
    )
  )
  const apply = Effect.fn("RemoteFiles.apply")(function*(edits: ReadonlyArray<FileEdit>) {
    if (edits.length === 0) return
    const reads = filesToRead(edits)
    const current = reads.length === 0 ? new Map<string, string | undefined>() : parseRead(reads, yield* script("reading files", readScript(reads)))
    if (current === undefined) return yield* failed("reading files")("the host's answer was cut short")
    const writes = yield* Effect.try({
      try: () => resolveEdits(edits, (path) => current.get(path)),
      catch: (cause) => failed("preparing files")(cause instanceof Error ? cause.message : String(cause))
    })
    yield* script("writing files", writeScript(writes))
  })
  return {
    dataDir: resolveDataDir,
    apply,
    learn: (path) => {
      resolved = path
    }
  }
}
