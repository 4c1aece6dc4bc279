/**
 * Tells each project's tracker about its sessions' events while the supervisor runs (tracker-b comments on
 * the Linear issue for the event types in its `commentOn`). It follows the event log's stream, so a slow or
 * failing tracker never holds up a session actor; a failure is recorded as a `tracker.update_failed` event. A
 * failure of its own (the record or the event log cannot be read or written) is the loop's (loop-guard.ts).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { OrchEvent } from "../src/domain/event.ts"
import { reasonOf } from "../src/domain/reason.ts"
import { worksAnIssue } from "../src/domain/session.ts"
import type { TrackerShape } from "../src/plugins/tracker/Tracker.ts"
import { EventLog, type EventLogShape } from "../src/store/EventLog.ts"
import { SessionStore, type SessionStoreShape } from "../src/store/SessionStore.ts"
import type { GuardedLoop } from "./loop-guard.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"
import { WatchedProjects } from "./watched-projects.ts"

export const TRACKER_UPDATE_TIMEOUT = "30 seconds"

export interface TrackerUpdatesContext {
  readonly events: EventLogShape
  readonly store: SessionStoreShape
  /** The tracker of a project now (a reload may add, change or remove one). */
  readonly trackerOf: (projectId: string) => TrackerShape | undefined
  /** Reports a failure to tell one event, and goes on with the next. */
  readonly loop: GuardedLoop
}

/** Delivers one event to the tracker of its session's project, if that tracker listens. */
export const tellTracker = Effect.fnUntraced(function*(ctx: TrackerUpdatesContext, event: OrchEvent) {
  // Its own failures are not told again: a tracker that fails on them would never stop.
  if (event.sessionId === undefined || event.type === "tracker.update_failed") return
  if (event.projectId !== undefined && ctx.trackerOf(event.projectId)?.onSessionEvent === undefined) return
  // A session removed since has nothing to tell.
  const record = yield* ctx.store.read(event.sessionId).pipe(Effect.map(Option.some), Effect.catchTag("SessionNotFound", () => Effect.succeedNone))
  // Orchestrator and task sessions have no issue in any tracker.
  if (record._tag === "None" || !worksAnIssue(record.value)) return
  const { sessionId, projectId, issueId, branch, pr } = record.value
  const tracker = ctx.trackerOf(projectId)
  const listener = tracker?.onSessionEvent
  if (tracker === undefined || listener === undefined) return
  yield* listener({ event, issueId, sessionId, branch, pr }).pipe(
    Effect.timeout(TRACKER_UPDATE_TIMEOUT),
    Effect.catchCause((cause) =>
      ctx.events.append({
        type: "tracker.update_failed",
        sessionId,
        projectId,
        issueId,
        message: `${tracker.name} could not be told about ${event.type}: ${reasonOf(cause)}`
      })
    )
  )
})

/**
 * Follows the event log for as long as the calling scope lives. Subscribes before it returns. It follows even
 * when no tracker listens yet (a reload may add one); an event is passed over at once when its project's does not.
 */
export const followSessionEvents = (ctx: TrackerUpdatesContext) =>
  ctx.events.stream.pipe(
    Stream.runForEach((event) => ctx.loop.attempt(tellTracker(ctx, event), `${event.type} of ${event.sessionId ?? "no session"} is not told to the tracker`)),
    Effect.forkScoped({ startImmediately: true }),
    Effect.asVoid
  )

/** The watched projects' trackers told of their sessions' events for as long as the layer lives. */
export const trackerUpdatesLayer = Layer.effectDiscard(Effect.gen(function*() {
  const projects = yield* WatchedProjects
  const { guard } = yield* SupervisorLoops
  yield* followSessionEvents({
    events: yield* EventLog,
    store: yield* SessionStore,
    trackerOf: (projectId) => projects.get(projectId)?.tracker,
    loop: guard("tracker updates")
  })
}))
