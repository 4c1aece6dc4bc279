/**
 * The append-only event log, `events.jsonl`: one JSON object per line, one write per line, never rewritten.
 * Each appended event is also published to subscribers in this process (the dashboard's live stream).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import { Host, type HostShape } from "../config/host.ts"
import type { NewEvent, OrchEvent } from "../domain/event.ts"
import { atCrashPoint } from "./crash-points.ts"
import type { StoreError } from "./errors.ts"
import { appendLine } from "./files.ts"
import { dataDir, storePaths } from "./paths.ts"

export interface EventLogShape {
  readonly path: string
  /** Stamps the event with the current time (ISO 8601 UTC), appends it, and publishes it. */
  readonly append: (event: NewEvent) => Effect.Effect<OrchEvent, StoreError>
  /** Events appended from now on, in this process. */
  readonly stream: Stream.Stream<OrchEvent>
}

export class EventLog extends Context.Service<EventLog, EventLogShape>()("orch/store/EventLog") {
  static readonly make = Effect.fnUntraced(function*(path: string) {
    const bus = yield* PubSub.unbounded<OrchEvent>()
    return EventLog.of({
      path,
      append: Effect.fnUntraced(function*(event: NewEvent) {
        const now = yield* Clock.currentTimeMillis
        const stamped: OrchEvent = { timestamp: new Date(now).toISOString(), ...event }
        yield* atCrashPoint(`append ${event.type}: before`)
        yield* appendLine(path, JSON.stringify(stamped))
        yield* atCrashPoint(`append ${event.type}: after`)
        yield* PubSub.publish(bus, stamped)
        return stamped
      }),
      stream: Stream.fromPubSub(bus)
    })
  })

  static readonly layer = Layer.effect(EventLog, Effect.flatMap(Host, (host: HostShape) => EventLog.make(storePaths(dataDir(host)).events)))
}
