/**
 * The live hub behind `GET /api/events`: one place that follows the supervisor (records as they are written,
 * events as they are appended, the inbox and the queue as they change) and fans each change out to every open page. A
 * page gets a snapshot first, then every change, on one stream; nothing is polled, per page or at all.
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import { appendFileSync, mkdirSync, watch } from "node:fs"
import { dirname } from "node:path"
import type { OrchEvent } from "../domain/event.ts"
import { entryLabel } from "../domain/queue.ts"
import { readAdmissionState, waitingReason } from "../store/admission-file.ts"
import type { EventLogShape } from "../store/EventLog.ts"
import type { InboxShape } from "../store/Inbox.ts"
import { QueueStore } from "../store/QueueStore.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"
import type { InboxState, LiveMessage, QueuedEntry, Snapshot } from "./api.ts"
import { showsOnCard } from "./board.ts"
import { lastEvents } from "./event-tail.ts"

/** How much of the event log's end is read to find each session's last event at start. */
const LAST_EVENTS_SCAN_BYTES = 8 * 1024 * 1024
/** The inbox entries a page gets: the newest ones. */
const INBOX_ENTRIES = 100
/** Writes to the inbox come in bursts (a notification, then its read marker); one read after them. */
const INBOX_SETTLE_MS = 20
/** The files that say what is queued and what each entry waits on (both rewritten by renaming a new file in). */
const QUEUE_FILES: ReadonlyArray<string> = ["queue.json", "admission.json"]

export interface LiveHub {
  readonly snapshot: Effect.Effect<Snapshot>
  /** The inbox as the pages were last told. */
  readonly inbox: Effect.Effect<InboxState>
  /** The snapshot, then every change, for one subscriber. */
  readonly stream: Stream.Stream<LiveMessage>
  /** Re-reads the inbox and tells the pages when it changed (the file watcher does this too). */
  readonly inboxChanged: Effect.Effect<void>
}

/** Keeps a loop going through its failures, each reported (the supervisor's loop guard, actors/loop-guard.ts). */
export type KeepGoing = (loop: string) => {
  readonly forever: <E, R>(step: Effect.Effect<void, E, R>) => Effect.Effect<never, never, R>
}

export const makeLiveHub = Effect.fnUntraced(function*(deps: {
  readonly store: SessionStoreShape
  readonly events: EventLogShape
  readonly inbox: InboxShape
  readonly keepGoing: KeepGoing
  /** The supervisor serving the page: what its admission rounds wrote is the word on the queue. */
  readonly supervisorPid: number
}) {
  const { store, events, inbox } = deps
  /** Follows `stream` until the hub closes; a feed that ends has nothing more to say. */
  const follow = <A>(loop: string, stream: Stream.Stream<A>, each: (item: A) => Effect.Effect<void>) =>
    deps.keepGoing(loop).forever(Effect.andThen(Stream.runForEach(stream, each), Effect.never)).pipe(Effect.forkScoped({ startImmediately: true }))
  const hub = yield* PubSub.unbounded<LiveMessage>()
  yield* Effect.addFinalizer(() => PubSub.shutdown(hub))
  const publish = (message: LiveMessage) => Effect.asVoid(PubSub.publish(hub, message))

  const { records } = yield* store.list
  const last = lastEvents(events.path, new Set(records.map((r) => r.sessionId)), showsOnCard, LAST_EVENTS_SCAN_BYTES)

  yield* follow("dashboard's record feed", store.changes, (change) => publish({ kind: "session", sessionId: change.sessionId, record: change.record }))
  yield* follow("dashboard's event feed", events.stream, (event: OrchEvent) => {
    if (event.sessionId !== undefined && showsOnCard(event)) last.set(event.sessionId, event)
    return publish({ kind: "event", event })
  })

  let inboxState: InboxState = { unread: 0, entries: [] }
  // An inbox that cannot be read is logged, and the pages keep what they were last told.
  const readInbox: Effect.Effect<InboxState> = inbox.list().pipe(
    Effect.map((entries) => ({ unread: entries.filter((e) => !e.read).length, entries: entries.slice(0, INBOX_ENTRIES) })),
    Effect.catch((error) => Effect.as(Effect.logError(`could not read the inbox ${inbox.path}: ${error.message}`), inboxState))
  )
  inboxState = yield* readInbox
  const inboxChanged = Effect.gen(function*() {
    const next = yield* readInbox
    if (JSON.stringify(next) === JSON.stringify(inboxState)) return
    inboxState = next
    yield* publish({ kind: "inbox", ...next })
  })

  // The inbox is also written by other processes (`orch notify`, `orch notifications --mark-read`): watch the file.
  yield* Effect.sync(() => {
    mkdirSync(dirname(inbox.path), { recursive: true })
    appendFileSync(inbox.path, "")
  })
  const context = yield* Effect.context<never>()
  let settle: ReturnType<typeof setTimeout> | undefined
  const watcher = watch(inbox.path, () => {
    clearTimeout(settle)
    settle = setTimeout(() => Effect.runForkWith(context)(inboxChanged), INBOX_SETTLE_MS)
  })
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      clearTimeout(settle)
      watcher.close()
    })
  )

  const queueStore = QueueStore.make(store.paths.root)
  let queueState: ReadonlyArray<QueuedEntry> = []
  // A queue that cannot be read is logged, and the pages keep what they were last told.
  const readQueue: Effect.Effect<ReadonlyArray<QueuedEntry>> = queueStore.list.pipe(
    Effect.map((entries) => {
      const admission = readAdmissionState(store.paths.root)
      return entries.map((entry) => ({
        id: entry.id,
        projectId: entry.projectId,
        label: entryLabel(entry),
        priority: entry.priority,
        position: entry.position,
        waiting: waitingReason(admission, deps.supervisorPid, entry.id)
      }))
    }),
    Effect.catch((error) => Effect.as(Effect.logError(`could not read the queue: ${error.message}`), queueState))
  )
  queueState = yield* readQueue
  const queueChanged = Effect.gen(function*() {
    const next = yield* readQueue
    if (JSON.stringify(next) === JSON.stringify(queueState)) return
    queueState = next
    yield* publish({ kind: "queue", entries: next })
  })
  let queueSettle: ReturnType<typeof setTimeout> | undefined
  const queueWatcher = watch(store.paths.root, (_, file) => {
    if (file === null || !QUEUE_FILES.includes(file)) return
    clearTimeout(queueSettle)
    queueSettle = setTimeout(() => Effect.runForkWith(context)(queueChanged), INBOX_SETTLE_MS)
  })
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      clearTimeout(queueSettle)
      queueWatcher.close()
    })
  )

  const snapshot = Effect.gen(function*() {
    const { records } = yield* store.list
    const shown: Record<string, OrchEvent> = {}
    for (const record of records) {
      const event = last.get(record.sessionId)
      if (event !== undefined) shown[record.sessionId] = event
    }
    return { sessions: records, lastEvents: shown, inbox: inboxState, queue: queueState }
  })

  // Subscribe before reading the snapshot: a change in between arrives after it, and applying it twice is harmless.
  const stream = Stream.unwrap(Effect.gen(function*() {
    const subscription = yield* PubSub.subscribe(hub)
    const first = yield* snapshot
    return Stream.concat(Stream.succeed<LiveMessage>({ kind: "snapshot", ...first }), Stream.fromSubscription(subscription))
  }))

  return { snapshot, inbox: Effect.sync(() => inboxState), stream, inboxChanged } satisfies LiveHub
})
