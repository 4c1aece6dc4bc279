/**
 * Sessions whose actor crashed too often (rules/restart-policy.ts): orch stops watching them, says so (a
 * `supervisor.escalated` event and an urgent notification) and remembers it in escalations.json, so neither the
 * actor's restarts nor a new supervisor watch them again. A person ends it: a restore (the agent started again, or,
 * while it still runs, only watched again) or a kill.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { newNotification } from "../src/domain/notification.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import { type Escalation, readEscalations, writeEscalations } from "../src/store/escalations-file.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { NotifierRouter } from "./notifier-router.ts"

export interface ActorEscalationsShape {
  /** Whether orch stopped watching the session, for the agent its record names now. */
  readonly isEscalated: (record: SessionRecord) => boolean
  /** Stops watching the session until a person acts: the event, the urgent notification, and escalations.json. */
  readonly escalate: (record: SessionRecord, reason: string) => Effect.Effect<void>
  /** A person acted on the session (restored or killed it): it is watched again. */
  readonly clear: (sessionId: string) => Effect.Effect<void>
}

const sameRuntime = (a: SessionRecord["runtime"], b: SessionRecord["runtime"]) => JSON.stringify(a) === JSON.stringify(b)

export class ActorEscalations extends Context.Service<ActorEscalations, ActorEscalationsShape>()("orch/actors/ActorEscalations") {
  static readonly layer = Layer.effect(
    ActorEscalations,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const events = yield* EventLog
      const router = yield* NotifierRouter
      const root = store.paths.root
      const loaded = yield* Effect.result(readEscalations(root))
      // An unreadable file forgets nothing silently: the log says so, and every session is watched.
      if (loaded._tag === "Failure") yield* Effect.logWarning(loaded.failure.message)
      const escalations = new Map<string, Escalation>(loaded._tag === "Success" ? loaded.success.map((e) => [e.sessionId, e]) : [])
      const save = Effect.suspend(() => writeEscalations(root, [...escalations.values()])).pipe(
        Effect.catch((error) => Effect.logError(`${error.message}; a new supervisor watches the sessions orch stopped watching again`))
      )

      const escalate = Effect.fn("ActorEscalations.escalate")(function*(record: SessionRecord, reason: string) {
        const { sessionId } = record
        escalations.set(sessionId, { sessionId, at: new Date(yield* Clock.currentTimeMillis).toISOString(), reason, runtime: record.runtime })
        yield* save
        yield* events.append({ type: "supervisor.escalated", sessionId, message: reason }).pipe(
          Effect.catch((error) => Effect.logError(`could not record that orch stopped watching ${sessionId}: ${error.message}`))
        )
        yield* router.notify(
          yield* newNotification({
            type: "supervisor.escalated",
            priority: "urgent",
            title: `${sessionId}: orch stopped watching this session`,
            message:
              `${reason}. Once the cause is fixed, \`orch session restore ${sessionId}\` has orch watch it again; \`orch session kill ${sessionId}\` ends it.`,
            sessionId
          })
        )
      })

      return ActorEscalations.of({
        isEscalated: (record) => {
          const escalation = escalations.get(record.sessionId)
          return escalation !== undefined && sameRuntime(escalation.runtime, record.runtime)
        },
        escalate,
        clear: (sessionId) => Effect.suspend(() => (escalations.delete(sessionId) ? save : Effect.void))
      })
    })
  )
}
