/**
 * Whether a spawn's (or a kill's) process still runs, asked of the system (process-liveness.ts: its pid, and its start time where
 * the journal has it, so a reused pid is not taken for it), and records as every list shows them (domain/live.ts
 * `shownStatus`). Only a `spawning` record asks: the others cost nothing. Also whether a live session's agent is gone,
 * from the pid its terminal's handle keeps.
 */
import { isInterrupted, isLive, shownStatus } from "../domain/live.ts"
import { hostOf, type SessionRecord } from "../domain/session.ts"
import { isProcessAlive } from "./process-liveness.ts"

/** Whether the process that spawns `record` still runs; true for a record with no spawn journal (nothing to ask). */
export const spawnerLives = (record: Pick<SessionRecord, "spawn">): boolean =>
  record.spawn === undefined || isProcessAlive(record.spawn.pid, record.spawn.startTime)

/** Whether the process killing `record` still runs; true for a record no kill is under way on. */
export const killerLives = (record: Pick<SessionRecord, "killing">): boolean =>
  record.killing === undefined || isProcessAlive(record.killing.pid, record.killing.startTime)

/** The record with the status lists show: a spawn, or a kill, whose process is gone half-way is `interrupted`. */
export const asListed = <R extends SessionRecord>(record: R): R => {
  if (record.status !== "spawning" && record.killing === undefined) return record
  const status = shownStatus(record, spawnerLives(record), killerLives(record))
  return status === record.status ? record : { ...record, status }
}

/**
 * Whether a live session on this machine is seen to have lost its agent: the process its terminal runs (the pid, and
 * start time, its runtime's handle keeps) is gone. False when that cannot be told here (no pid kept, another host).
 */
export const agentProcessGone = (record: Pick<SessionRecord, "status" | "host" | "runtime">): boolean => agentGoneChecker()(record)

/**
 * `agentProcessGone` for many records at once (a list of sessions): the system is asked once per distinct process (pid
 * and start time), however many records keep it. One checker per list: a later list asks again.
 */
export const agentGoneChecker = (
  isAlive: (pid: number, startTime?: string) => boolean = isProcessAlive
): (record: Pick<SessionRecord, "status" | "host" | "runtime">) => boolean => {
  const alive = new Map<string, boolean>()
  return (record) => {
    const data = record.runtime?.data
    if (!isLive(record) || hostOf(record) !== "local" || typeof data?.pid !== "number") return false
    const startTime = typeof data.pidStart === "string" ? data.pidStart : undefined
    const key = `${data.pid} ${startTime ?? ""}`
    let known = alive.get(key)
    if (known === undefined) {
      known = isAlive(data.pid, startTime)
      alive.set(key, known)
    }
    return !known
  }
}

/** The records that are spawns interrupted half-way: what reconcile undoes. */
export const interruptedSpawns = <R extends SessionRecord>(records: ReadonlyArray<R>): ReadonlyArray<R> =>
  records.filter((record) => record.status === "spawning" && isInterrupted(record, spawnerLives(record)))

/** The records a spawn or a kill left half-done (their process gone): what reconcile finishes or undoes. */
export const cutShort = <R extends SessionRecord>(records: ReadonlyArray<R>): ReadonlyArray<R> =>
  records.filter((record) => asListed(record).status === "interrupted")

/**
 * Whether records owe a spawn a reconcile first: a spawn or a kill cut short (it may hold the issue, or a session id),
 * or a killed session's `session.spawned` still to write. A running supervisor's own chores (a queue entry's start cut
 * short, a reservation with no record, environment files left behind) are its probe cycle's and its start's, not a
 * spawn's: the supervisor asks this before each spawn it runs instead of reconciling every time.
 */
export const owesReconcile = (records: ReadonlyArray<SessionRecord>): boolean =>
  cutShort(records).length > 0 || records.some((r) => r.spawn?.announce !== undefined && r.status !== "spawning" && !spawnerLives(r))
