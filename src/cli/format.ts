/** Plain-text output helpers for the CLI: aligned tables and short ages. */

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)))
  return [header, ...rows].map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n")
}

export const age = (fromIso: string, nowMs: number): string => duration(nowMs - Date.parse(fromIso))

/** A span of time as its largest whole unit: `42s`, `5m`, `3h`, `2d`. */
export const duration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`
  return `${Math.floor(seconds / 86400)}d`
}

/** The command that brings a rescue ref pushed to origin (by a session on another host) into a clone. */
const fetchRescue = (ref: string) => `git fetch origin ${ref}:${ref}`

/**
 * Where a command put a session's unsaved work, for its report ("" when there was none). A session on another host
 * saves it to its origin, not to this machine's clone: the note says how to bring it here.
 */
export const rescueNote = (
  removed: { readonly rescuedTo?: string | undefined; readonly commit?: string | undefined; readonly record?: { readonly host?: string | undefined } }
): string => {
  if (removed.rescuedTo === undefined) return ""
  const commit = removed.commit ? `commit ${removed.commit.slice(0, 12)}` : undefined
  const host = removed.record?.host
  return host === undefined || host === "local"
    ? `; unsaved work saved to ${removed.rescuedTo}${commit ? ` (${commit})` : ""}`
    : `; unsaved work saved to ${removed.rescuedTo} on origin, pushed from host ${host} (${commit ? `${commit}; ` : ""}\`${
      fetchRescue(removed.rescuedTo)
    }\` brings it here)`
}

/**
 * What `orch session restore` says of the work saved when the session was last removed, with the command that brings
 * it back in the session's worktree: there, on another host, the ref is only on origin and is fetched first.
 */
export const restoreRescueNote = (record: { readonly rescueRef?: string | undefined; readonly host?: string | undefined }): string | undefined => {
  const ref = record.rescueRef
  if (ref === undefined) return undefined
  return record.host === undefined || record.host === "local"
    ? `work saved when it was last removed is in ${ref}; bring it back with: git checkout ${ref} -- .`
    : `work saved when it was last removed is in ${ref} on origin; bring it back in the session's worktree on host ${record.host} with: ${
      fetchRescue(ref)
    } && git checkout ${ref} -- .`
}
