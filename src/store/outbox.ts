/**
 * A change to a file orch writes whole, with its events as one step (src/domain/outbox.ts): the file is read and any
 * events a writer killed before appending them are appended first (those the log has from where they belong are
 * skipped); then the change is written with its events in the outbox, the events appended, and the file written
 * again without them. A `kill -9` anywhere leaves the old file, or the new one with events the next change tells.
 * The caller holds the file's lock around it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { NewEvent, OrchEvent } from "../domain/event.ts"
import type { Outbox } from "../domain/outbox.ts"
import type { StoreError } from "./errors.ts"
import type { EventLogShape } from "./EventLog.ts"

export interface OutboxFile<F> {
  readonly read: Effect.Effect<F, StoreError>
  /** Writes the file whole; `durable: false` for a write that only clears what the next change would redo. */
  readonly write: (file: F, durable: boolean) => Effect.Effect<void, StoreError>
}

/** `f` answers the next file (undefined: unchanged), its answer and the events of the change. */
export type OutboxChange<F, A> = (file: F, nowIso: string) => readonly [F | undefined, A, ReadonlyArray<NewEvent>?]

export const changeWithOutbox = Effect.fnUntraced(function*<F extends { readonly outbox?: Outbox }, A>(
  events: EventLogShape,
  store: OutboxFile<F>,
  f: OutboxChange<F, A>
) {
  const found = yield* store.read
  const file = yield* flush(events, found)
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  const [next, answer, news = []] = f(file, now)
  if (news.length === 0) {
    if (next !== undefined) yield* store.write(next, true)
    else if (file !== found) yield* store.write(file, false)
    return answer
  }
  const stamped: Array<OrchEvent> = news.map((event) => ({ timestamp: now, ...event }))
  const settled = next ?? file
  yield* store.write({ ...settled, outbox: { logOffset: yield* events.size, events: stamped } }, true)
  for (const event of stamped) yield* events.appendStamped(event)
  yield* store.write(settled, false)
  return answer
})

/** The file without its outbox, once the events a writer that died left there are in the log. */
const flush = Effect.fnUntraced(function*<F extends { readonly outbox?: Outbox }>(events: EventLogShape, file: F) {
  if (file.outbox === undefined) return file
  const written = new Set(yield* events.linesFrom(file.outbox.logOffset))
  for (const event of file.outbox.events) if (!written.has(JSON.stringify(event))) yield* events.appendStamped(event)
  const { outbox: _, ...rest } = file
  // F less its optional outbox is an F: TypeScript cannot see it through the type parameter.
  return rest as F
})
