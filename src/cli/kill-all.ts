/**
 * `orch stop --kill-sessions` with no supervisor running: every live session is killed here, as `orch session kill`
 * would (its unsaved work rescued first), each under the config its record names. Loaded only then.
 */
import * as Effect from "effect/Effect"
import { isLive } from "../domain/session.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { withSessionsFor } from "./session-context.ts"

export interface KillAllReport {
  readonly killed: ReadonlyArray<{ readonly sessionId: string; readonly rescuedTo?: string; readonly commit?: string }>
  readonly failed: ReadonlyArray<{ readonly sessionId: string; readonly reason: string }>
}

export const killEverySession = Effect.fn("cli.killEverySession")(function*() {
  const { records } = yield* SessionStore.use((store) => store.list).pipe(Effect.provide(SessionStore.layer))
  const killed: Array<KillAllReport["killed"][number]> = []
  const failed: Array<KillAllReport["failed"][number]> = []
  for (const record of records.filter(isLive)) {
    const result = yield* Effect.result(withSessionsFor(record.sessionId, (sessions) => sessions.kill(record.sessionId)))
    if (result._tag === "Failure") failed.push({ sessionId: record.sessionId, reason: result.failure.message })
    else {
      const { rescuedTo, commit } = result.success
      killed.push({ sessionId: record.sessionId, ...(rescuedTo !== undefined ? { rescuedTo } : {}), ...(commit !== undefined ? { commit } : {}) })
    }
  }
  return { killed, failed } satisfies KillAllReport
})
