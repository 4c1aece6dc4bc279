/**
 * The queue as the session procedures share it: the queue of the store's data dir, and the entries this process is
 * starting now (admission marks them; reconcile's recovery leaves them alone).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EventLog } from "../store/EventLog.ts"
import { QueueStore, type QueueStoreShape } from "../store/QueueStore.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { type EntriesInFlight, makeEntriesInFlight } from "./queue-in-flight.ts"

export interface SessionQueueShape {
  readonly queue: QueueStoreShape
  readonly inFlight: EntriesInFlight
}

export class SessionQueue extends Context.Service<SessionQueue, SessionQueueShape>()("orch/sessions/SessionQueue") {
  /** Needs the store and the event log. */
  static readonly layer = Layer.effect(
    SessionQueue,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const queue = QueueStore.make(store.paths.root, yield* EventLog)
      return SessionQueue.of({ queue, inFlight: makeEntriesInFlight() })
    })
  )
}
