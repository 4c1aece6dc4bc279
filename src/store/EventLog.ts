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
import { statSync } from "node:fs"
import { Host, type HostShape } from "../config/host.ts"
import type { NewEvent, OrchEvent } from "../domain/event.ts"
import { atCrashPoint } from "./crash-points.ts"
import type { StoreError } from "./errors.ts"
import { appendLine, attempt, readFrom } from "./files.ts"
import { dataDir, storePaths } from "./paths.ts"

export interface EventLogShape {
  readonly path: string
  /** Stamps the event with the current time (ISO 8601 UTC), appends it, and publishes it. */
  readonly append: (event: NewEvent) => Effect.Effect<OrchEvent, StoreError>
  /** Appends and publishes an event stamped before (one a queue change wrote down first: src/store/QueueStore.ts). */
  readonly appendStamped: (event: OrchEvent) => Effect.Effect<void, StoreError>
  /** The log's size in bytes now: where the next line starts. */
  readonly size: Effect.Effect<number>
  /** The lines from byte `offset` to the end, as written. */
  readonly linesFrom: (offset: number) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Events appended from now on, in this process. */
  readonly stream: Stream.Stream<OrchEvent>
}

export class EventLog extends Context.Service<EventLog, EventLogShape>()("orch/store/EventLog") {
  static readonly make = Effect.fnUntraced(function*(path: string) {
    const bus = yield* PubSub.unbounded<OrchEvent>()
    const appendStamped = (stamped: OrchEvent) =>
      atCrashPoint(`append ${stamped.type}: before`).pipe(
        Effect.andThen(appendLine(path, JSON.stringify(stamped))),
        Effect.andThen(atCrashPoint(`append ${stamped.type}: after`)),
        Effect.andThen(PubSub.publish(bus, stamped))
      )
    return EventLog.of({
      path,
      append: Effect.fnUntraced(function*(event: NewEvent) {
        const now = yield* Clock.currentTimeMillis
        const stamped: OrchEvent = { timestamp: new Date(now).toISOString(), ...event }
        yield* appendStamped(stamped)
        return stamped
      }),
      appendStamped: (stamped) => Effect.asVoid(appendStamped(stamped)),
      size: Effect.sync(() => statSync(path, { throwIfNoEntry: false })?.size ?? 0),
      linesFrom: (offset) => attempt(path, () => readFrom(path, offset).split("\n").filter((line) => line !== "")),
      stream: Stream.fromPubSub(bus)
    })
  })

  static readonly layer = Layer.effect(EventLog, Effect.flatMap(Host, (host: HostShape) => EventLog.make(storePaths(dataDir(host)).events)))
}
