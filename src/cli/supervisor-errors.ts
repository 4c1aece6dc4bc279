/**
 * The line `orch status` prints when the supervisor met errors lately: its `supervisor.error` events of the last
 * RECENT_ERRORS_MS, read from the end of the event log (files only, no IPC). Only the latest supervisor's count:
 * the reading stops at its `supervisor.started`.
 */
import { isEvent, visitJsonBackward } from "../dashboard/event-tail.ts"
import type { OrchEvent } from "../domain/event.ts"
import { isRecord } from "../domain/plain-guards.ts"

export const RECENT_ERRORS_MS = 10 * 60_000
/** How much of the log's end is read: errors are rare, and the window short. */
const SCAN_BYTES = 4 * 1024 * 1024

export interface RecentErrors {
  readonly count: number
  /** The newest one. */
  readonly last: OrchEvent
}

/** The latest supervisor's errors within `windowMs` before `nowMs`, among `newestFirst` events; none: undefined. */
export const recentErrors = (newestFirst: Iterable<OrchEvent>, nowMs: number, windowMs = RECENT_ERRORS_MS): RecentErrors | undefined => {
  let count = 0
  let last: OrchEvent | undefined
  for (const event of newestFirst) {
    if (event.type === "supervisor.started" || Date.parse(event.timestamp) < nowMs - windowMs) break
    if (event.type !== "supervisor.error") continue
    count++
    last ??= event
  }
  return last === undefined ? undefined : { count, last }
}

/**
 * Reads the end of the event log for `recentErrors`. Only the lines that decide the answer are checked as events (an
 * error, a supervisor's start, the line that ends the window): the first check builds the whole event Schema's
 * guard, which the usual answer, no errors within a window of other events, does without.
 */
export const readRecentErrors = (eventsPath: string, nowMs: number, windowMs = RECENT_ERRORS_MS): RecentErrors | undefined => {
  const seen: Array<OrchEvent> = []
  const since = nowMs - windowMs
  visitJsonBackward(eventsPath, (value) => {
    if (!isRecord(value)) return true
    const decides = value.type === "supervisor.error" || value.type === "supervisor.started" ||
      (typeof value.timestamp === "string" && Date.parse(value.timestamp) < since)
    if (!decides || !isEvent(value)) return true
    seen.push(value)
    return value.type !== "supervisor.started" && Date.parse(value.timestamp) >= since
  }, SCAN_BYTES)
  return recentErrors(seen, nowMs, windowMs)
}

/** `/home/me/x` → `~/x`. */
const shortPath = (path: string, homeDir: string) => (homeDir !== "" && path.startsWith(`${homeDir}/`) ? `~/${path.slice(homeDir.length + 1)}` : path)

export const supervisorErrorsNote = (
  recent: RecentErrors,
  paths: { readonly events: string; readonly supervisorLog: string },
  homeDir: string,
  windowMs = RECENT_ERRORS_MS
): string => {
  const last = (recent.last.message ?? String(recent.last.data?.loop ?? "")).replace(/\.$/, "")
  return `The supervisor met ${recent.count} error${recent.count === 1 ? "" : "s"} in the last ${Math.round(windowMs / 60_000)} minutes (last: ${last}): ` +
    `see \`grep supervisor.error ${shortPath(paths.events, homeDir)}\` and its log at ${shortPath(paths.supervisorLog, homeDir)}.`
}
