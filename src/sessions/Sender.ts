/** `orch send`: a message typed into a running session's agent, and `session.message_sent`. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import { hostOf, isEnded } from "../domain/session.ts"
import { Runtime } from "../plugins/runtime/Runtime.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { SessionNotRunning } from "./errors.ts"
import type { SendError } from "./procedure-errors.ts"
import { projectOf } from "./project-lookup.ts"
import { SessionPlugins } from "./SessionPlugins.ts"

export interface SenderShape {
  /** Types `message` into the session's agent; refuses a session that is not running (or whose host does not answer). */
  readonly send: (sessionId: string, message: string) => Effect.Effect<void, SendError>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins

  const send = Effect.fn("Sessions.send")(function*(sessionId: string, message: string) {
    const config = yield* configs.current
    const record = yield* store.read(sessionId)
    const project = yield* projectOf(config, record)
    yield* Effect.gen(function*() {
      if (isEnded(record.status)) return yield* new SessionNotRunning({ sessionId, state: record.status })
      const state = yield* plugins.livenessFor(config, record, "send")
      if (state._tag !== "Alive") {
        return yield* new SessionNotRunning({ sessionId, state: state._tag === "Gone" ? "its terminal session is gone" : "its agent exited" })
      }
      yield* Runtime.use((runtime) => runtime.send(record.runtime!, message))
    }).pipe(plugins.provide(config, project, hostOf(record)))
    yield* events.append({ type: "session.message_sent", sessionId, projectId: record.projectId, message: message.slice(0, 200) })
  })

  return Sender.of({ send })
})

export class Sender extends Context.Service<Sender, SenderShape>()("orch/sessions/Sender") {
  /** Needs the config in force, the store, the event log and SessionPlugins. */
  static readonly layer = Layer.effect(Sender, make)
}
