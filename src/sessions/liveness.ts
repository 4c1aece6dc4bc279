/** A session's liveness as its runtime (of its project's plugins, in context) tells it. */
import * as Effect from "effect/Effect"
import type { SessionRecord } from "../domain/session.ts"
import { type Liveness, Runtime, type RuntimeError } from "../plugins/runtime/Runtime.ts"

export const GONE: Liveness = { _tag: "Gone" }

/** The session's liveness; undefined when its runtime could not say (its host did not answer). */
export const probed = (record: SessionRecord): Effect.Effect<Liveness | undefined, RuntimeError, Runtime> => {
  const handle = record.runtime
  return handle === null ? Effect.succeed(GONE) : Runtime.use((runtime) => runtime.probe([handle])).pipe(Effect.map((found) => found.get(handle.id)))
}

/** The session's liveness, gone when its runtime could not say. */
export const liveness = (record: SessionRecord) => Effect.map(probed(record), (state) => state ?? GONE)
