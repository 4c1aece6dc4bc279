/**
 * The work queue on disk: `<dataDir>/queue.json`, rewritten atomically (files.ts) under the `queue` lock (lock.ts),
 * so concurrent CLI processes and the supervisor never lose each other's entries and a `kill -9` leaves the old
 * queue or the new one. Read with a Schema; a file that does not decode is an error, never an empty queue.
 *
 * A change and its events (`queue.added`, `queue.admitted`, `queue.dropped`, `queue.recovered`) are one step: the
 * events are written in the file with the change (its outbox), then appended to the event log, then cleared. Whoever
 * takes the lock next appends what a crash left in the outbox, unless the log already has it. An entry being started
 * is marked `admitting` (with the session id its spawn reserved) and leaves the queue only once its session exists.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { join } from "node:path"
import { Host, type HostShape } from "../config/host.ts"
import type { NewEvent } from "../domain/event.ts"
import { entryLabel, type Positioned, type QueueEntry, QueueFile, queueOrder } from "../domain/queue.ts"
import { StoreError } from "./errors.ts"
import { EventLog, type EventLogShape } from "./EventLog.ts"
import { writeFileAtomic } from "./files.ts"
import { readJsonFile } from "./json-file.ts"
import { type LockTimeout, withLock } from "./lock.ts"
import { changeWithOutbox, type OutboxChange, type OutboxFile } from "./outbox.ts"
import { dataDir, storePaths } from "./paths.ts"
import { thisProcess } from "./process-liveness.ts"

const decodeQueue = Schema.decodeUnknownResult(Schema.fromJsonString(QueueFile))
const EMPTY: QueueFile = { next: 1, entries: [] }

/** What to queue: an issue (queued by intake, or by a person), or a task (its text). */
export type QueueTarget = { readonly issue: string; readonly by?: "intake"; readonly title?: string } | { readonly task: string }

export interface Added {
  readonly added: ReadonlyArray<Positioned>
  /** Issues that were queued already (for the same project): left where they were. */
  readonly already: ReadonlyArray<Positioned>
}

export interface Removed {
  readonly removed: ReadonlyArray<QueueEntry>
  /** Entries `ref` names that are being started now: left alone (their session is about to exist). */
  readonly starting: ReadonlyArray<QueueEntry>
}

/** How an admission ends: its session exists, the entry could never start, or it waits again where it was. */
export type Settlement =
  | { readonly _tag: "Admitted"; readonly message: string; readonly data?: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Dropped"; readonly message: string }
  | { readonly _tag: "Returned" }

export type QueueError = StoreError | LockTimeout

export interface QueueStoreShape {
  readonly path: string
  /** Queues what is not queued yet, each with `queue.added` (its message `describe`d: "queued q-3 at position 2" by default). */
  readonly add: (
    projectId: string,
    targets: ReadonlyArray<QueueTarget>,
    priority: number,
    describe?: (entry: Positioned) => string
  ) => Effect.Effect<Added, QueueError>
  /** In queue order, with positions (entries being started included, with their `admitting`). */
  readonly list: Effect.Effect<ReadonlyArray<Positioned>, StoreError>
  /** Removes the waiting entries `ref` names (an entry id, or an issue in any project), each with `queue.dropped`. */
  readonly remove: (ref: string, why: string) => Effect.Effect<Removed, QueueError>
  /** Removes one waiting entry (not one being started) with `queue.dropped`; false when it was not there to remove. */
  readonly drop: (
    id: string,
    message: string,
    extra?: { readonly sessionId?: string; readonly data?: Readonly<Record<string, unknown>> }
  ) => Effect.Effect<boolean, QueueError>
  /** Marks a waiting entry as being started as `sessionId` by this process; false when it is gone or taken. */
  readonly claim: (id: string, sessionId: string) => Effect.Effect<boolean, QueueError>
  /**
   * Ends the admission of `id` as `sessionId` (a no-op when the entry is not being started as that session), with
   * `also` (recovery's `queue.recovered`) in the same step.
   */
  readonly settle: (id: string, sessionId: string, how: Settlement, also?: ReadonlyArray<NewEvent>) => Effect.Effect<boolean, QueueError>
  /** Appends the events a writer killed after writing its change left in the outbox (recovery runs it first). */
  readonly flushOutbox: Effect.Effect<void, QueueError>
}

const eventOf = (entry: QueueEntry) => ({ projectId: entry.projectId, ...(entry.issue !== undefined ? { issueId: entry.issue } : {}) })

/** Reads the queue file (an empty queue when there is none, or no data directory yet). */
const readQueueFile = (path: string): Effect.Effect<QueueFile, StoreError> =>
  readJsonFile(path, decodeQueue, { missing: EMPTY, whenUnreadable: "move it away to start an empty queue" })

/** The queue of the data directory `root`, in queue order: for readers (`orch queue ls`, `orch status`, the dashboard). */
export const listQueue = (root: string): Effect.Effect<ReadonlyArray<Positioned>, StoreError> =>
  Effect.map(readQueueFile(join(root, "queue.json")), (file) => queueOrder(file.entries))

export class QueueStore extends Context.Service<QueueStore, QueueStoreShape>()("orch/store/QueueStore") {
  static readonly make = (root: string, events: EventLogShape): QueueStoreShape => {
    const paths = storePaths(root)
    const path = join(root, "queue.json")
    const file: OutboxFile<QueueFile> = {
      read: readQueueFile(path),
      write: (next, durable) => writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { durable })
    }

    /** Reads, changes and writes the queue under its lock, the change's events with it (outbox.ts). */
    const change = <A>(f: OutboxChange<QueueFile, A>) => withLock(paths.locks, "queue", "30 seconds")(changeWithOutbox(events, file, f))

    const add = Effect.fn("QueueStore.add")(function*(
      projectId: string,
      targets: ReadonlyArray<QueueTarget>,
      priority: number,
      describe: (entry: Positioned) => string = (entry) => `queued ${entry.id} at position ${entry.position}`
    ) {
      const ids = yield* change((file, addedAt) => {
        const entries = [...file.entries]
        let next = file.next
        const added: Array<string> = []
        const already: Array<string> = []
        for (const target of targets) {
          const issue = "issue" in target ? target.issue.replace(/^#/, "") : undefined
          const existing = issue === undefined ? undefined : entries.find((e) => e.projectId === projectId && e.issue === issue)
          if (existing !== undefined) {
            already.push(existing.id)
            continue
          }
          const id = `q-${next}`
          entries.push({
            id,
            projectId,
            ...(issue !== undefined ? { issue } : { task: (target as { task: string }).task }),
            priority,
            addedAt,
            seq: next,
            ...("by" in target && target.by !== undefined ? { by: target.by } : {}),
            ...("title" in target && target.title !== undefined ? { title: target.title } : {})
          })
          added.push(id)
          next++
        }
        const ordered = queueOrder(entries)
        const pick = (wanted: ReadonlyArray<string>) => wanted.map((id) => ordered.find((e) => e.id === id)!)
        const news = pick(added).map((entry): NewEvent => ({
          type: "queue.added",
          ...eventOf(entry),
          message: describe(entry),
          data: { entryId: entry.id, priority: entry.priority, ...(entry.by !== undefined ? { by: entry.by } : {}) }
        }))
        return [added.length > 0 ? { next, entries } : undefined, { added: pick(added), already: pick(already) }, news] as const
      })
      return ids
    })

    const dropped = (entry: QueueEntry, message: string, extra: { readonly sessionId?: string; readonly data?: Readonly<Record<string, unknown>> } = {}) =>
      ({
        type: "queue.dropped",
        ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}),
        ...eventOf(entry),
        message,
        data: { entryId: entry.id, ...(entry.by !== undefined ? { by: entry.by } : {}), ...extra.data }
      }) satisfies NewEvent

    const remove = Effect.fn("QueueStore.remove")(function*(ref: string, why: string) {
      const wanted = ref.replace(/^#/, "")
      return yield* change((file) => {
        const named = file.entries.filter((e) => e.id === wanted || e.issue === wanted)
        const removed = named.filter((e) => e.admitting === undefined)
        const starting = named.filter((e) => e.admitting !== undefined)
        const answer: Removed = { removed, starting }
        if (removed.length === 0) return [undefined, answer] as const
        return [
          { ...file, entries: file.entries.filter((e) => !removed.includes(e)) },
          answer,
          removed.map((entry) => dropped(entry, `${entry.id} (${entryLabel(entry)}) ${why}`))
        ] as const
      })
    })

    const drop = Effect.fn("QueueStore.drop")(function*(
      id: string,
      message: string,
      extra: { readonly sessionId?: string; readonly data?: Readonly<Record<string, unknown>> } = {}
    ) {
      return yield* change((file) => {
        const entry = file.entries.find((e) => e.id === id && e.admitting === undefined)
        if (entry === undefined) return [undefined, false] as const
        return [{ ...file, entries: file.entries.filter((e) => e !== entry) }, true, [dropped(entry, message, extra)]] as const
      })
    })

    const claim = Effect.fn("QueueStore.claim")(function*(id: string, sessionId: string) {
      const by = thisProcess()
      return yield* change((file, at) => {
        const entry = file.entries.find((e) => e.id === id)
        if (entry === undefined || entry.admitting !== undefined) return [undefined, false] as const
        return [{ ...file, entries: file.entries.map((e) => (e === entry ? { ...e, admitting: { sessionId, by, at } } : e)) }, true] as const
      })
    })

    const settle = Effect.fn("QueueStore.settle")(function*(id: string, sessionId: string, how: Settlement, also: ReadonlyArray<NewEvent> = []) {
      return yield* change((file) => {
        const entry = file.entries.find((e) => e.id === id && e.admitting?.sessionId === sessionId)
        if (entry === undefined) return [undefined, false] as const
        if (how._tag === "Returned") {
          const { admitting: _, ...waiting } = entry
          return [{ ...file, entries: file.entries.map((e) => (e === entry ? waiting : e)) }, true, also] as const
        }
        const ending: NewEvent = how._tag === "Admitted"
          ? { type: "queue.admitted", sessionId, ...eventOf(entry), message: how.message, data: { entryId: entry.id, ...how.data } }
          : dropped(entry, how.message, { sessionId })
        return [{ ...file, entries: file.entries.filter((e) => e !== entry) }, true, [ending, ...also]] as const
      })
    })

    // Looked at without the lock first: nearly always there is nothing owed.
    const flushOutbox = Effect.flatMap(readQueueFile(path), (file) => file.outbox === undefined ? Effect.void : change(() => [undefined, undefined] as const))

    return { path, add, list: Effect.map(readQueueFile(path), (file) => queueOrder(file.entries)), remove, drop, claim, settle, flushOutbox }
  }

  /** The queue in `~/.orchestrator` (or `ORCH_HOME`). */
  static readonly layer = Layer.effect(
    QueueStore,
    Effect.gen(function*() {
      const host: HostShape = yield* Host
      return QueueStore.make(dataDir(host), yield* EventLog)
    })
  )
}
