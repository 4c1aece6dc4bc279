/** The append-only event log, `events.jsonl`: one JSON object per line, one write per line, never rewritten. */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Host, type HostShape } from "../config/host.ts"
import type { NewEvent, OrchEvent } from "../domain/event.ts"
import type { StoreError } from "./errors.ts"
import { appendLine } from "./files.ts"
import { dataDir, storePaths } from "./paths.ts"

export interface EventLogShape {
  readonly path: string
  /** Stamps the event with the current time (ISO 8601 UTC) and appends it. */
  readonly append: (event: NewEvent) => Effect.Effect<OrchEvent, StoreError>
}

export class EventLog extends Context.Service<EventLog, EventLogShape>()("orch/store/EventLog") {
  static readonly make = (path: string): EventLogShape => ({
    path,
    append: Effect.fnUntraced(function*(event: NewEvent) {
      const now = yield* Clock.currentTimeMillis
      const stamped: OrchEvent = { timestamp: new Date(now).toISOString(), ...event }
      yield* appendLine(path, JSON.stringify(stamped))
      return stamped
    })
  })

  static readonly layer = Layer.effect(EventLog, Effect.map(Host, (host: HostShape) => EventLog.make(storePaths(dataDir(host)).events)))
}
