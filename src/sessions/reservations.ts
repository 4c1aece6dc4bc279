/**
 * What admission and placement read of the sessions' sizes at each round: the expected size of one more session per
 * agent (session-sizes.json), and the sessions that hold a memory reservation now (src/domain/reservation.ts decides,
 * from the records, the time of the last size sample and which spawns still run).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { reservedSessions } from "../domain/reservation.ts"
import type { SessionRecord } from "../domain/session.ts"
import { readSessionSizesFile } from "../store/session-sizes-file.ts"
import { spawnerLives } from "../store/spawner.ts"
import { expectedSize, type Measured } from "./admission-facts.ts"

/** The expected sizes and the sessions holding a reservation, read now from `root` (the data dir) and the records. */
export const readMeasured = Effect.fn("Sessions.readMeasured")(function*(root: string, records: ReadonlyArray<SessionRecord>) {
  const now = yield* Clock.currentTimeMillis
  const file = yield* Effect.sync(() => readSessionSizesFile(root))
  const sampledAt = file === undefined ? Number.NaN : Date.parse(file.at)
  const runningSpawns = yield* Effect.sync(() =>
    new Set(records.flatMap((r) => r.status === "spawning" && r.spawn !== undefined && spawnerLives(r) ? [r.sessionId] : []))
  )
  return {
    expectedBytes: expectedSize(file?.agents ?? {}),
    reserved: reservedSessions(records, { now, runningSpawns, ...(Number.isNaN(sampledAt) ? {} : { sampledAt }) })
  } satisfies Measured
})
