/**
 * What `orch hosts` and `orch status` say of the hosts: rows from each host's view (the running supervisor's
 * hosts.json, or a reading made now) and the sessions on it. Pure, but for reading the file.
 */
import { formatSshTarget, type HostSpec } from "../config/host-spec.ts"
import { activeHolds, type Hold } from "../domain/holds.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { hostOf, isEnded, type SessionRecord } from "../domain/session.ts"
import type { HostView } from "../hosts/host-watch.ts"

const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`

export interface HostRow {
  readonly host: string
  readonly ssh?: string
  readonly status: "up" | "down" | "unknown"
  readonly since?: number
  readonly view?: HostView
  readonly sessions: ReadonlyArray<string>
  readonly maxSessions?: number
  readonly labels: ReadonlyArray<string>
  readonly lastError?: string
}

/** One row per host (local first), from the views and the live sessions of the records. */
export const hostRows = (
  specs: Readonly<Record<string, HostSpec>>,
  views: ReadonlyMap<string, HostView>,
  records: ReadonlyArray<SessionRecord>
): ReadonlyArray<HostRow> =>
  ["local", ...Object.keys(specs)].map((host) => {
    const spec = specs[host]
    const view = views.get(host)
    return {
      host,
      ...(spec !== undefined ? { ssh: formatSshTarget(spec.ssh) } : {}),
      status: view?.status ?? "unknown",
      ...(view !== undefined ? { since: view.since, view } : {}),
      sessions: records.filter((r) => !isEnded(r.status) && hostOf(r) === host).map((r) => r.sessionId),
      ...(spec?.maxSessions !== undefined ? { maxSessions: spec.maxSessions } : {}),
      labels: spec?.labels ?? [],
      ...(view?.lastError !== undefined && view.status === "down" ? { lastError: view.lastError } : {})
    }
  })

const mb = (value: number) => (value >= 1024 ? `${(value / 1024).toFixed(1)} GB` : `${Math.round(value)} MB`)

/** The table's cells of a row. A host that is down has no figures now: its last ones are not shown as if they held. */
export const hostCells = (row: HostRow): ReadonlyArray<string> => {
  const headroom = row.status === "down" ? undefined : row.view?.headroom
  return [
    row.host,
    row.status === "down" && row.since !== undefined ? `down since ${hhmm(row.since)}` : row.status,
    headroom !== undefined ? `${mb(headroom.memAvailableMb)} of ${mb(headroom.memTotalMb)}` : "-",
    headroom !== undefined ? `${headroom.load1} on ${headroom.cpus} CPUs` : "-",
    headroom !== undefined ? mb(headroom.disk.freeMb) : "-",
    `${row.sessions.length}${row.maxSessions !== undefined ? `/${row.maxSessions}` : ""}`,
    row.labels.join(",") || "-",
    row.lastError ?? ""
  ]
}

export const HOST_HEADER = ["HOST", "STATE", "FREE MEMORY", "LOAD", "FREE DISK", "SESSIONS", "LABELS", "LAST ERROR"]

/** `orch status`'s lines for hosts that are down and have live sessions: which, since when and why. */
export const downHostLines = (views: ReadonlyMap<string, HostView>, records: ReadonlyArray<SessionRecord>): ReadonlyArray<string> =>
  [...views].flatMap(([host, view]) => {
    if (view.status !== "down") return []
    const sessions = records.filter((r) => !isEnded(r.status) && hostOf(r) === host).map((r) => r.sessionId)
    if (sessions.length === 0) return []
    return [
      `host ${host} unreachable since ${hhmm(view.since)}: ${sessions.join(", ")} read unknown until it answers${
        view.lastError !== undefined ? `; last: ${view.lastError}` : ""
      }`
    ]
  })

/**
 * A line per host held back for a project (a spawn there failed: src/domain/holds.ts): "b is left out for app since
 * 12:01: creating the workspace: fatal: … ; orch tries again at 12:05".
 */
export const holdLines = (holds: ReadonlyArray<Hold>, now: number): ReadonlyArray<string> =>
  activeHolds(holds, now).flatMap((hold) =>
    hold.host === undefined ? [] : [
      `${hold.host === "local" ? "this machine (local)" : hold.host} is left out for ${hold.project} since ${
        hhmm(Date.parse(hold.since))
      }: ${hold.reason}; orch tries again ${clockTime(now)(Date.parse(hold.retryAt))}`
    ]
  )
