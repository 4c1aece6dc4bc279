/**
 * The session actors: one per live session of a watched project, each a fiber (a FiberMap keyed by session id)
 * with its own bounded mailbox (actor-mailbox.ts) that it takes one message at a time: observations, folded into
 * the record by fold-observation.ts, and commands, a person's procedures on the session. A crashed actor restarts, and
 * one that crashes too often is escalated (actor-restarts.ts, actor-escalations.ts).
 *
 * Observations are offered without waiting: a full mailbox (an actor far behind) refuses them rather than hold up
 * the probe cycle, and the next cycle observes again. Commands wait for room. Each actor also keeps what has been
 * read of its session so far (signals, screen), which starts and ends with it.
 */
import type * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import { watchActivity } from "../src/store/activity-file.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { ActorEscalations } from "./actor-escalations.ts"
import { type ActorMessage, closeMailbox, drain, type Mailbox, runCommand } from "./actor-mailbox.ts"
import { superviseActor } from "./actor-restarts.ts"
import { AllCompleteNotice } from "./all-complete-notice.ts"
import { handleObservation } from "./fold-observation.ts"
import { NotifierRouter } from "./notifier-router.ts"
import type { Observation } from "./rules/lifecycle.ts"
import type { ScreenReading } from "./rules/limit-reading.ts"
import { WatchedProjects } from "./watched-projects.ts"

export const MAILBOX_CAPACITY = 64

/** What has been read of a session so far; the signal reader and the probe cycle's screen reading keep it. */
export interface SessionReading {
  /** Byte offset read so far in the session's activity.jsonl (from the record's `signalOffset` at start). */
  offset: number
  /** Who said the agent's last word and when (ms): while hooks speak its screen is not read. */
  word?: { readonly by: "hook" | "report"; readonly at: number }
  /** The agent plugin's last reading of the screen and when it was captured: read again only after newer output. */
  screen?: { readonly capturedAt: number; readonly reading: ScreenReading }
}

export interface ActorEntry {
  /** The record the actor started from (its project, branch, host and runtime do not change while it runs). */
  readonly record: SessionRecord
  readonly mailbox: Mailbox
  readonly reading: SessionReading
}

export interface SessionActorsShape {
  /** Starts the actor of a live record: none when it has one, or when orch stopped watching it (escalated). */
  readonly start: (record: SessionRecord) => Effect.Effect<void>
  /** Starts an actor for every live record of a watched project that has none (after a procedure changed records). */
  readonly startLive: Effect.Effect<void>
  /** Stops a session's actor; commands still in its mailbox go back to their callers. */
  readonly stop: (sessionId: string) => Effect.Effect<void>
  /** Offers an observation without waiting: false when the session has no actor or its mailbox is full. */
  readonly observe: (sessionId: string, observation: Observation) => Effect.Effect<boolean>
  /** Runs a procedure on the session through its actor (actor-mailbox.ts), or here when it has none; answers its result. */
  readonly command: <A, E>(sessionId: string, effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** Waits until every actor (or the session's) has handled all it was offered before: a receipt. */
  readonly drained: (sessionId?: string) => Effect.Effect<void>
  readonly entry: (sessionId: string) => ActorEntry | undefined
  readonly entries: () => ReadonlyArray<ActorEntry>
  readonly count: Effect.Effect<number>
  /** The next session whose activity file changed (its actor's file watcher), for the signal reader. */
  readonly woken: Effect.Effect<string>
}

export class SessionActors extends Context.Service<SessionActors, SessionActorsShape>()("orch/actors/SessionActors") {
  static readonly layer = Layer.effect(SessionActors, Effect.suspend(() => make))
}

/** An actor in the registry, with how its end is tidied (its fiber's finalizer; again, harmlessly, by `stop`). */
interface Running extends ActorEntry {
  readonly close: Effect.Effect<void>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const router = yield* NotifierRouter
  const configs = yield* ConfigSource
  const projects = yield* WatchedProjects
  const escalations = yield* ActorEscalations
  const allComplete = yield* AllCompleteNotice
  const fibers = yield* FiberMap.make<string>()
  const actors = new Map<string, Running>()
  const wakeups = yield* Queue.unbounded<string>()
  /** Sessions whose full mailbox the log was told of, until an observation gets in again. */
  const behind = new Set<string>()

  // Each observation is decided by the config and the project's plugins in force when it is taken.
  const fold = (record: SessionRecord, observation: Observation) =>
    Effect.flatMap(configs.current, (config) => {
      const owner = projects.get(record.projectId)
      // A reload removed the project: its commit is stopping this actor.
      if (owner === undefined) return Effect.void
      const ctx = { config, project: owner.project, runtime: owner.runtime, ...(owner.scm ? { scm: owner.scm } : {}), store, events, router }
      return Effect.asVoid(handleObservation(ctx, record.sessionId, observation))
    })

  const take = (record: SessionRecord, message: ActorMessage): Effect.Effect<void, unknown> =>
    message._tag === "Command"
      ? message.run
      : message._tag === "Drain"
      ? Effect.asVoid(Deferred.succeed(message.done, undefined))
      : fold(record, message)

  const start = Effect.fn("SessionActors.start")(function*(record: SessionRecord) {
    const { sessionId } = record
    if (actors.has(sessionId) || escalations.isEscalated(record)) return
    if (record.role === undefined) allComplete.workerStarted()
    const mailbox = yield* Queue.bounded<ActorMessage, Cause.Done>(MAILBOX_CAPACITY)
    const watcher = watchActivity(store.paths.session(record.projectId, sessionId), () => Queue.offerUnsafe(wakeups, sessionId))
    const running: Running = {
      record,
      mailbox,
      reading: { offset: record.signalOffset ?? 0, ...(record.said !== undefined ? { word: { by: record.said.by, at: Date.parse(record.said.at) } } : {}) },
      close: Effect.suspend(() => {
        if (actors.get(sessionId) === running) actors.delete(sessionId)
        behind.delete(sessionId)
        watcher?.close()
        return closeMailbox(mailbox)
      })
    }
    actors.set(sessionId, running)
    const body = Effect.forever(Effect.flatMap(Queue.take(mailbox), (message) => take(record, message)))
    const supervised = superviseActor(sessionId, body, (reason) => escalations.escalate(record, reason))
    yield* FiberMap.run(fibers, sessionId, Effect.ensuring(supervised, running.close), { startImmediately: true })
  })

  const stop = (sessionId: string) =>
    Effect.suspend(() => {
      const running = actors.get(sessionId)
      return Effect.andThen(FiberMap.remove(fibers, sessionId), running?.close ?? Effect.void)
    })

  const observe = Effect.fnUntraced(function*(sessionId: string, observation: Observation) {
    const running = actors.get(sessionId)
    if (running === undefined) return false
    if (Queue.offerUnsafe(running.mailbox, observation)) {
      behind.delete(sessionId)
      return true
    }
    if (!behind.has(sessionId)) {
      behind.add(sessionId)
      yield* Effect.logWarning(`the actor of ${sessionId} is behind (its mailbox is full): its observations are left out until it catches up`)
    }
    return false
  })

  return SessionActors.of({
    start,
    startLive: Effect.flatMap(store.list, ({ records }) => Effect.forEach(records.filter(projects.isLive), start, { discard: true })),
    stop,
    observe,
    command: (sessionId, effect) =>
      Effect.suspend(() => {
        const running = actors.get(sessionId)
        return running === undefined ? effect : runCommand(running.mailbox, effect)
      }),
    drained: (sessionId) =>
      Effect.suspend(() => {
        const running = sessionId === undefined ? [...actors.values()] : [actors.get(sessionId)].filter((r) => r !== undefined)
        return Effect.forEach(running, (r) => drain(r.mailbox), { discard: true })
      }),
    entry: (sessionId) => actors.get(sessionId),
    entries: () => [...actors.values()],
    count: Effect.sync(() => actors.size),
    woken: Queue.take(wakeups)
  })
})
