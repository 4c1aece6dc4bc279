/** The time records are stamped with (the Clock's), and a record's change written with it. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { SessionRecord } from "../domain/session.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"

export const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Writes `record` with `changes`, stamped now; answers what was written. */
export const updateRecord = (store: SessionStoreShape, record: SessionRecord, changes: Partial<SessionRecord>) =>
  Effect.flatMap(nowIso, (updatedAt) => {
    const next = { ...record, ...changes, updatedAt }
    return Effect.as(store.write(next), next)
  })
