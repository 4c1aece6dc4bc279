/**
 * The queue's procedures over the session services (queueing.ts): `orch queue add|ls|rm`, and admission, whose
 * spawns are the Spawner's (each claiming its entry with the session id it reserves).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import type { Waiting } from "../domain/admission.ts"
import type { QueueEntry } from "../domain/queue.ts"
import { Tracker } from "../plugins/tracker/Tracker.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { PlacementFacts } from "./PlacementFacts.ts"
import type { AdmitError, QueueAddError, QueueListError, QueueRemoveError, QueueTaskError } from "./procedure-errors.ts"
import { findProject } from "./project-lookup.ts"
import { type Candidate, type HoldNews, makeQueueing } from "./queueing.ts"
import { Reconciler } from "./Reconciler.ts"
import type { QueueAdded, QueuedItem } from "./SessionOps.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { SessionQueue } from "./SessionQueue.ts"
import { Spawner } from "./Spawner.ts"

/** What an admission round answers: what waits and why, how many it started, the entries dropped (they could never start), and the holds made. */
export interface Admitted {
  readonly waiting: ReadonlyArray<Waiting<Candidate>>
  readonly admitted: number
  readonly dropped: ReadonlyArray<{ readonly entry: QueueEntry; readonly reason: string }>
  readonly held: ReadonlyArray<HoldNews>
}

export interface QueueProceduresShape {
  /** Queues issues of a project (those queued already stay where they are); refuses what could never start. */
  readonly queueAdd: (projectRef: string, issues: ReadonlyArray<string>, priority: number) => Effect.Effect<QueueAdded, QueueAddError>
  /** Queues a task in a person's words for a project (the agent's prompt once admitted). */
  readonly queueTask: (projectRef: string, task: string, priority: number) => Effect.Effect<QueueAdded, QueueTaskError>
  /** Removes the entries `ref` names (an entry id, or an issue); an entry whose start was cut short is put back first (reconcile). */
  readonly queueRemove: (ref: string) => Effect.Effect<ReadonlyArray<QueueEntry>, QueueRemoveError>
  /** The queue in order; without a supervisor nothing admits, and every entry says so. */
  readonly queueList: () => Effect.Effect<ReadonlyArray<QueuedItem>, QueueListError>
  /** Starts what the admission rule admits (each decided once the one before has its first record; they start side by side), until it admits nothing. */
  readonly admit: () => Effect.Effect<Admitted, AdmitError>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const spawner = yield* Spawner
  const reconciler = yield* Reconciler
  const placement = yield* PlacementFacts
  const { queue, inFlight } = yield* SessionQueue
  const queueing = makeQueueing({
    queue,
    events,
    store,
    config: configs.current,
    findProject,
    spawn: (projectId, target, options) => spawner.spawn(projectId, target, options),
    lookup: (config, project, issueId) => Tracker.use((tracker) => tracker.getIssue(issueId)).pipe(plugins.provide(config, project)),
    unplaceable: placement.unplaceable,
    used: placement.usedHere,
    inFlight
  })
  return QueueProcedures.of({
    queueAdd: queueing.queueAdd,
    queueTask: queueing.queueTask,
    queueRemove: (ref) => Effect.andThen(reconciler.reconcile(), queueing.queueRemove(ref)),
    queueList: queueing.queueList,
    admit: queueing.admit
  })
})

export class QueueProcedures extends Context.Service<QueueProcedures, QueueProceduresShape>()("orch/sessions/QueueProcedures") {
  /** Needs the config in force, the store, the event log, SessionPlugins, SessionQueue, PlacementFacts, the Reconciler and the Spawner. */
  static readonly layer = Layer.effect(QueueProcedures, make)
}
