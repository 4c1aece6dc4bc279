/**
 * The events appended to the log after a byte offset (where the log ended when a spawn was asked for), read forward
 * from there with nothing but `node:fs`: the fast path (src/ipc/fast-path.ts), which loads no Effect, and the full
 * CLI (src/cli/spawn-interrupted.ts) read them alike. Only what src/domain/spawn-fate.ts reads is kept; a line that
 * is not an event is passed over.
 */
import { statSync } from "node:fs"
import { isRecord } from "../domain/plain-guards.ts"
import type { SpawnEventLike } from "../domain/spawn-fate.ts"
import { readFrom } from "./read-from.ts"

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const eventOf = (line: string): Array<SpawnEventLike> => {
  let event: unknown
  try {
    event = JSON.parse(line)
  } catch {
    return []
  }
  if (!isRecord(event) || typeof event.type !== "string") return []
  return [{
    type: event.type,
    sessionId: text(event.sessionId),
    projectId: text(event.projectId),
    issueId: text(event.issueId),
    data: isRecord(event.data) ? { task: event.data.task } : undefined
  }]
}

/** Where the event log ends now (0 when there is none yet): what is appended from now on starts there. */
export const eventLogEnd = (path: string): number => {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? 0
  } catch {
    return 0
  }
}

/** The events appended after byte `from` (a line's start), oldest first; a missing log has none. */
export const eventsAfter = (path: string, from: number): Array<SpawnEventLike> => {
  try {
    return readFrom(path, from).split("\n").flatMap(eventOf)
  } catch {
    return []
  }
}
