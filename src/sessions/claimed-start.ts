/**
 * A queue entry started by whoever took it off the queue (admission's round, or a person's batch-spawn): the entry is
 * claimed with the session id its spawn reserves, before anything is made, and leaves the queue (`queue.admitted`)
 * only once that session is whole. A cancelled spawn undoes what it made and puts the entry back where it was. A
 * failure is answered with the claim, if one was made, for the caller to settle as its own rule says.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { QueueEntry } from "../domain/queue.ts"
import type { SessionRecord } from "../domain/session.ts"
import type { QueueStoreShape } from "../store/QueueStore.ts"
import type { EntriesInFlight } from "./queue-in-flight.ts"
import type { ClaimError } from "./spawn-run.ts"

/** The entry was claimed, or removed, by someone else before this spawn could claim it. */
export class EntryTaken extends Schema.TaggedError<EntryTaken>()("EntryTaken", { entryId: Schema.String }) {
  override get message() {
    return `${this.entryId} was taken off the queue meanwhile`
  }
}

export type ClaimedStart<A, E> =
  | { readonly _tag: "Started"; readonly spawned: A }
  | { readonly _tag: "Failed"; readonly error: E | EntryTaken; readonly claimed: string | undefined }

/** What the `queue.admitted` of a started entry says. */
export interface AdmittedNote {
  readonly message: string
  readonly data?: Readonly<Record<string, unknown>>
}

export const startClaimed = <A extends { readonly record: SessionRecord }, E, R>(
  queue: QueueStoreShape,
  inFlight: EntriesInFlight,
  entry: QueueEntry,
  spawn: (claim: (sessionId: string) => Effect.Effect<void, ClaimError>) => Effect.Effect<A, E | EntryTaken, R>,
  admitted: (record: SessionRecord) => Effect.Effect<AdmittedNote>
) =>
  Effect.gen(function*() {
    let claimed: string | undefined
    // Claimed and remembered as one step: a cancel between the two would leave the mark with nobody to clear it.
    const claim = (sessionId: string) =>
      queue.claim(entry.id, sessionId).pipe(
        Effect.tap((ok) => Effect.sync(() => void (ok ? (claimed = sessionId) : undefined))),
        Effect.uninterruptible,
        Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail(new EntryTaken({ entryId: entry.id }))))
      )
    const spawned = yield* inFlight.starting(
      entry.id,
      spawn(claim).pipe(
        // Cancelled: the spawn undid what it made; the entry goes back where it was.
        Effect.onInterrupt(() => claimed === undefined ? Effect.void : returnLogged(queue, entry, claimed)),
        Effect.result
      )
    )
    if (spawned._tag === "Failure") return { _tag: "Failed", error: spawned.failure, claimed } satisfies ClaimedStart<A, E>
    const { record } = spawned.success
    yield* queue.settle(entry.id, record.sessionId, { _tag: "Admitted", ...(yield* admitted(record)) })
    return { _tag: "Started", spawned: spawned.success } satisfies ClaimedStart<A, E>
  })

/** Puts an entry back where failing cannot be answered (a cancelled spawn): a failure is logged, recovery redoes it. */
const returnLogged = (queue: QueueStoreShape, entry: QueueEntry, sessionId: string) =>
  queue.settle(entry.id, sessionId, { _tag: "Returned" }).pipe(
    Effect.catch((error) =>
      Effect.logWarning(`${entry.id} stays marked as being started as ${sessionId} (${error.message}); the next start of orch puts it back`)
    )
  )
