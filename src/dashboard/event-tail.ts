/**
 * Reading the event log from its end: a session's timeline and each session's last event cost only the tail of
 * a log that grows forever. Lines are split on bytes, so a character cut by a chunk boundary stays whole.
 */
import * as Schema from "effect/Schema"
import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { OrchEvent } from "../domain/event.ts"
import { concerns } from "./board.ts"

const CHUNK = 64 * 1024
export const isEvent = Schema.is(OrchEvent)

/**
 * Calls `visit` with each event from the newest back, until it returns false or `maxBytes` were read.
 * A missing log has no events.
 */
export const visitEventsBackward = (path: string, visit: (event: OrchEvent) => boolean, maxBytes = Infinity): void =>
  visitJsonBackward(path, (value) => (isEvent(value) ? visit(value) : true), maxBytes)

/**
 * `visitEventsBackward` for a reader that checks only the lines it keeps: `visit` has each line's JSON, not yet known
 * to be an event (a line that is not JSON is skipped).
 */
export const visitJsonBackward = (path: string, visit: (value: unknown) => boolean, maxBytes = Infinity): void => {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch {
    return
  }
  try {
    let position = fstatSync(fd).size
    const stop = Math.max(0, position - maxBytes)
    let carry = Buffer.alloc(0)
    while (position > stop) {
      const length = Math.min(CHUNK, position - stop)
      position -= length
      const chunk = Buffer.alloc(length)
      readSync(fd, chunk, 0, length, position)
      const buffer = Buffer.concat([chunk, carry])
      let end = buffer.length
      for (let i = buffer.length - 1; i >= 0; i--) {
        if (buffer[i] !== 0x0a) continue
        if (!visitLine(buffer.subarray(i + 1, end), visit)) return
        end = i
      }
      carry = buffer.subarray(0, end)
    }
    if (position === 0) visitLine(carry, visit)
  } finally {
    closeSync(fd)
  }
}

const visitLine = (line: Buffer, visit: (value: unknown) => boolean): boolean => {
  if (line.length === 0) return true
  let value: unknown
  try {
    value = JSON.parse(line.toString("utf8"))
  } catch {
    return true
  }
  return visit(value)
}

/** The newest `limit` events of one session (its own, and those of a pair it is in) within the log's last `maxBytes`, oldest first. */
export const sessionEvents = (path: string, sessionId: string, limit: number, maxBytes = 64 * 1024 * 1024): Array<OrchEvent> => {
  const found: Array<OrchEvent> = []
  visitEventsBackward(path, (event) => {
    if (concerns(event, sessionId)) found.push(event)
    return found.length < limit
  }, maxBytes)
  return found.reverse()
}

/** The newest event that `shows` for each of `sessionIds`, reading at most `maxBytes` of the log's end. */
export const lastEvents = (
  path: string,
  sessionIds: ReadonlySet<string>,
  shows: (event: OrchEvent) => boolean,
  maxBytes: number
): Map<string, OrchEvent> => {
  const found = new Map<string, OrchEvent>()
  if (sessionIds.size === 0) return found
  visitEventsBackward(path, (event) => {
    if (event.sessionId !== undefined && sessionIds.has(event.sessionId) && !found.has(event.sessionId) && shows(event)) {
      found.set(event.sessionId, event)
    }
    return found.size < sessionIds.size
  }, maxBytes)
  return found
}
