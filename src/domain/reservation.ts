/**
 * The memory reservation of a session just placed (not the session id reservation of src/store, a directory): an
 * agent that just started has not grown yet, so a host's figures read soon after (MemAvailable here, a host's
 * headroom) do not show what it will take, and it counts against its host at its expected size until they do.
 * Derived from the session records and the time of the last size sample (session-sizes.json's `at`), never kept on
 * its own: a `kill -9` at any point can neither leave a reservation nothing holds nor lose one something does.
 * Pure, over explicit time.
 */
import { MEASURE_AFTER_MS } from "./session-size.ts"
import { holdsASlot, hostOf, type SessionRecord } from "./session.ts"

/**
 * The longest a started session holds its reservation when no size sample comes after it became measurable. While a
 * supervisor runs it samples each minute and a session is measured once it has run MEASURE_AFTER_MS, so the sample
 * that ends a reservation comes within two minutes of the session's start. The bound is for when nobody samples (no
 * supervisor runs): it keeps a reservation from lasting for ever, and by then the agent has started up, so the host's
 * own figures show what it holds (what it grows to later is the measured expected size's to cover). Both count from
 * the record's `createdAt`, as `measurable` does: a spawn that takes over a minute (a slow `postCreate`) may see its
 * reservation end as its agent starts, since the record keeps no time of that start.
 */
export const RESERVATION_MAX_MS = 2 * 60_000

export interface ReservationFacts {
  /** Now, in ms. */
  readonly now: number
  /** When the last size sample was taken (session-sizes.json's `at`, in ms); undefined before any. */
  readonly sampledAt?: number
  /** Sessions whose spawn's process still runs: a spawn killed half-way holds nothing (it is undone, not placed). */
  readonly runningSpawns: ReadonlySet<string>
}

type Reserving = Pick<SessionRecord, "sessionId" | "role" | "status" | "activity" | "createdAt">

/**
 * Whether the session holds a reservation now: a worker (orchestrator sessions are neither admitted nor measured)
 * whose agent may run, while its spawn runs, then until the first size sample taken once it became measurable, and
 * at most RESERVATION_MAX_MS after it started.
 */
export const holdsReservation = (record: Reserving, facts: ReservationFacts): boolean => {
  if (record.role !== undefined || !holdsASlot(record)) return false
  if (record.status === "spawning") return facts.runningSpawns.has(record.sessionId)
  const started = Date.parse(record.createdAt)
  if (Number.isNaN(started) || facts.now - started >= RESERVATION_MAX_MS) return false
  return facts.sampledAt === undefined || facts.sampledAt < started + MEASURE_AFTER_MS
}

/** The sessions that hold a reservation now. */
export const reservedSessions = <R extends Reserving>(records: ReadonlyArray<R>, facts: ReservationFacts): ReadonlyArray<R> =>
  records.filter((record) => holdsReservation(record, facts))

/** How many reserved sessions each host has (`local`: this machine). */
export const reservedPerHost = (reserved: ReadonlyArray<Pick<SessionRecord, "host">>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const record of reserved) counts.set(hostOf(record), (counts.get(hostOf(record)) ?? 0) + 1)
  return counts
}
