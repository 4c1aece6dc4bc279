/**
 * The live hub behind `GET /api/events`: one place that follows the supervisor (records as they are written,
 * events as they are appended, the inbox, the queue and the predicted conflicts as they change) and fans each change out to every open page. A
 * page gets a snapshot first, then every change, on one stream; nothing is polled, per page or at all.
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import { appendFileSync, mkdirSync, watch } from "node:fs"
import { dirname } from "node:path"
import type { ConflictPrediction } from "../domain/conflict.ts"
import type { OrchEvent } from "../domain/event.ts"
import { watchedView } from "../domain/live.ts"
import { entryLabel } from "../domain/queue.ts"
import type { SessionRecord } from "../domain/session.ts"
import { carsInOrder, waitingOn } from "../domain/train.ts"
import { readAdmissionState, waitingReason } from "../store/admission-file.ts"
import { readConflicts } from "../store/conflicts-file.ts"
import type { EventLogShape } from "../store/EventLog.ts"
import type { InboxShape } from "../store/Inbox.ts"
import { listQueue } from "../store/QueueStore.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"
import { asListed } from "../store/spawner.ts"
import { listTrains } from "../store/TrainStore.ts"
import type { InboxState, LiveMessage, QueuedEntry, Snapshot, TrainCarView } from "./api.ts"
import { showsOnCard } from "./board.ts"
import { lastEvents } from "./event-tail.ts"

/** How much of the event log's end is read to find each session's last event at start. */
const LAST_EVENTS_SCAN_BYTES = 8 * 1024 * 1024
/** The inbox entries a page gets: the newest ones. */
const INBOX_ENTRIES = 100
/** Writes come in bursts (a notification, then its read marker; a queue, then its admission): one read after them. */
const SETTLE_MS = 20
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

/**
 * Part of the pages' state kept in files other processes write: read now, read again once a burst of writes to
 * what `watched` (a file, or a directory whose `wanted` entries count) settles, and told to the pages when it
 * differs. `read` answers the last state when it cannot read.
 */
const followFiles = <A>(
  watched: string,
  wanted: (file: string | null) => boolean,
  read: (last: A) => Effect.Effect<A>,
  initial: A,
  tell: (state: A) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    let state = yield* read(initial)
    const changed = Effect.gen(function*() {
      const next = yield* read(state)
      if (JSON.stringify(next) === JSON.stringify(state)) return
      state = next
      yield* tell(next)
    })
    const context = yield* Effect.context<never>()
    let settle: ReturnType<typeof setTimeout> | undefined
    const watcher = watch(watched, (_, file) => {
      if (!wanted(file)) return
      clearTimeout(settle)
      settle = setTimeout(() => Effect.runForkWith(context)(changed), SETTLE_MS)
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        clearTimeout(settle)
        watcher.close()
      })
    )
    return { current: Effect.sync(() => state), changed }
  })

export const makeLiveHub = Effect.fnUntraced(function*(deps: {
  readonly store: SessionStoreShape
  readonly events: EventLogShape
  readonly inbox: InboxShape
  readonly keepGoing: KeepGoing
  /** The supervisor serving the page: what its admission rounds wrote is the word on the queue. */
  readonly supervisorPid: number
  /** The ids of the projects the supervisor serves now: a live session of another one is `unwatched`. */
  readonly watched: Effect.Effect<ReadonlySet<string>>
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

  // Records as every list shows them: a spawn whose process died half-way is `interrupted` (src/store/spawner.ts), a
  // live session of a project the supervisor no longer serves `unwatched` (src/domain/live.ts).
  const shown = (record: SessionRecord) => Effect.map(deps.watched, (watched) => watchedView(asListed(record), watched))
  yield* follow(
    "dashboard's record feed",
    store.changes,
    (change) =>
      Effect.flatMap(
        change.record === null ? Effect.succeed(null) : shown(change.record),
        (record) => publish({ kind: "session", sessionId: change.sessionId, record })
      )
  )
  // A config applied may have taken projects away, or brought them back: their sessions are told again.
  const retell = Effect.flatMap(
    store.list,
    ({ records }) =>
      Effect.forEach(records, (record) => Effect.flatMap(shown(record), (view) => publish({ kind: "session", sessionId: record.sessionId, record: view })))
  )
  yield* follow("dashboard's event feed", events.stream, (event: OrchEvent) => {
    if (event.sessionId !== undefined && showsOnCard(event)) last.set(event.sessionId, event)
    return Effect.andThen(publish({ kind: "event", event }), event.type === "config.applied" ? Effect.asVoid(retell) : Effect.void)
  })

  // The inbox is also written by other processes (`orch notify`, `orch notifications --mark-read`): watch the file.
  yield* Effect.sync(() => {
    mkdirSync(dirname(inbox.path), { recursive: true })
    appendFileSync(inbox.path, "")
  })
  // Either, when it cannot be read, is logged, and the pages keep what they were last told.
  const inboxFeed = yield* followFiles(
    inbox.path,
    () => true,
    (last: InboxState) =>
      inbox.list().pipe(
        Effect.map((entries) => ({ unread: entries.filter((e) => !e.read).length, entries: entries.slice(0, INBOX_ENTRIES) })),
        Effect.catch((error) => Effect.as(Effect.logError(`could not read the inbox ${inbox.path}: ${error.message}`), last))
      ),
    { unread: 0, entries: [] },
    (state) => publish({ kind: "inbox", ...state })
  )
  const queueFeed = yield* followFiles(
    store.paths.root,
    (file) => file !== null && QUEUE_FILES.includes(file),
    (last: ReadonlyArray<QueuedEntry>) =>
      listQueue(store.paths.root).pipe(
        Effect.map((entries) => {
          const admission = readAdmissionState(store.paths.root)
          return entries.map((entry) => ({
            id: entry.id,
            projectId: entry.projectId,
            label: entryLabel(entry),
            priority: entry.priority,
            position: entry.position,
            waiting: waitingReason(admission, deps.supervisorPid, entry)
          }))
        }),
        Effect.catch((error) => Effect.as(Effect.logError(`could not read the queue: ${error.message}`), last))
      ),
    [],
    (entries) => publish({ kind: "queue", entries })
  )
  // The merge trains: one file per project under trains/ (made here, so there is a directory to watch).
  const trainsDir = store.paths.trains
  yield* Effect.sync(() => mkdirSync(trainsDir, { recursive: true }))
  const trainFeed = yield* followFiles(
    trainsDir,
    (file) => file !== null && file.endsWith(".json"),
    (last: ReadonlyArray<TrainCarView>) =>
      listTrains(store.paths.root).pipe(
        Effect.map((trains) =>
          trains.flatMap((train) =>
            carsInOrder(train).map((car, i) => ({
              projectId: train.projectId,
              sessionId: car.sessionId,
              prNumber: car.prNumber,
              branch: car.branch,
              position: i + 1,
              waitingOn: waitingOn(car, i + 1)
            }))
          )
        ),
        Effect.catch((error) => Effect.as(Effect.logError(`could not read the merge trains: ${error.message}`), last))
      ),
    [],
    (cars) => publish({ kind: "train", cars })
  )

  const conflictsFeed = yield* followFiles(
    store.paths.root,
    (file) => file === "conflicts.json",
    (last: ReadonlyArray<ConflictPrediction>) =>
      readConflicts(store.paths.root).pipe(
        Effect.map((file) => file.predictions),
        Effect.catch((error) => Effect.as(Effect.logError(`could not read the predicted conflicts: ${error.message}`), last))
      ),
    [],
    (predictions) => publish({ kind: "conflicts", predictions })
  )

  const snapshot = Effect.gen(function*() {
    const { records } = yield* store.list
    const shownEvents: Record<string, OrchEvent> = {}
    for (const record of records) {
      const event = last.get(record.sessionId)
      if (event !== undefined) shownEvents[record.sessionId] = event
    }
    const watched = yield* deps.watched
    return {
      sessions: records.map((record) => watchedView(asListed(record), watched)),
      lastEvents: shownEvents,
      inbox: yield* inboxFeed.current,
      queue: yield* queueFeed.current,
      train: yield* trainFeed.current,
      conflicts: yield* conflictsFeed.current
    }
  })

  // Subscribe before reading the snapshot: a change in between arrives after it, and applying it twice is harmless.
  const stream = Stream.unwrap(Effect.gen(function*() {
    const subscription = yield* PubSub.subscribe(hub)
    const first = yield* snapshot
    return Stream.concat(Stream.succeed<LiveMessage>({ kind: "snapshot", ...first }), Stream.fromSubscription(subscription))
  }))

  return { snapshot, inbox: inboxFeed.current, stream, inboxChanged: inboxFeed.changed } satisfies LiveHub
})
