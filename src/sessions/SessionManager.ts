/**
 * The session procedures (spawn, batch-spawn, send, kill, restore, cleanup, rm and prune, the queue's, reconcile,
 * probes), each run with the plugins of the session's project, which ProjectPlugins builds once per project and
 * config. The CLI runs them in-process; the supervisor runs the same ones. Each procedure reads the config in force
 * (ConfigSource) once when it starts, so a supervisor's reload applies from the next procedure on.
 *
 * SessionManager is their composition: each group is a service of its own over the slots (Spawner, BatchSpawner,
 * Sender, Killer, Restorer, Cleaner, Remover, QueueProcedures, Reconciler, Prober), on what they share
 * (SessionPlugins, SessionQueue, KillSteps, PlacementFacts).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import { ConfigSource } from "../config/ConfigSource.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import type { SessionRecord } from "../domain/session.ts"
import { ProjectPlugins } from "../plugins/ProjectPlugins.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore, type SessionStoreShape } from "../store/SessionStore.ts"
import { BatchSpawner, type BatchSpawnerShape } from "./BatchSpawner.ts"
import { Cleaner, type CleanerShape } from "./Cleaner.ts"
import { Killer, type KillerShape } from "./Killer.ts"
import { KillSteps } from "./KillSteps.ts"
import { startOrchestrator } from "./orchestrator.ts"
import { PlacementFacts } from "./PlacementFacts.ts"
import { Prober, type ProberShape } from "./Prober.ts"
import type { OrchestrateError } from "./procedure-errors.ts"
import { findProject } from "./project-lookup.ts"
import { QueueProcedures, type QueueProceduresShape } from "./QueueProcedures.ts"
import { Reconciler, type ReconcilerShape } from "./Reconciler.ts"
import { Remover, type RemoverShape } from "./Remover.ts"
import { Restorer, type RestorerShape } from "./Restorer.ts"
import { Sender, type SenderShape } from "./Sender.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { SessionQueue } from "./SessionQueue.ts"
import { Spawner, type SpawnerShape } from "./Spawner.ts"

export type { Reconciled } from "./Reconciler.ts"

export interface SessionManagerShape
  extends
    SpawnerShape,
    BatchSpawnerShape,
    SenderShape,
    KillerShape,
    RestorerShape,
    CleanerShape,
    RemoverShape,
    QueueProceduresShape,
    ReconcilerShape,
    ProberShape
{
  /** Starts (or reuses) a project's orchestrator session; `cliPath` is the orch its agent will call. */
  readonly orchestrate: (
    projectRef: string | undefined,
    cliPath: string
  ) => Effect.Effect<{ readonly record: SessionRecord; readonly reused: boolean }, OrchestrateError>
  /** A session's record as it is on disk. */
  readonly read: SessionStoreShape["read"]
}

/** What the procedures share: the plugins they run with, the queue, a kill's steps, placement's readings, reconcile. */
const shared = Reconciler.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(KillSteps.layer, PlacementFacts.layer)),
  Layer.provideMerge(Layer.mergeAll(SessionPlugins.layer, SessionQueue.layer))
)

const procedures = Layer.mergeAll(
  BatchSpawner.layer,
  QueueProcedures.layer,
  Sender.layer,
  Killer.layer,
  Restorer.layer,
  Cleaner.layer,
  Remover.layer,
  Prober.layer
).pipe(Layer.provideMerge(Spawner.layer), Layer.provideMerge(shared))

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const orchestrating = yield* Semaphore.make(1)
  const orchestrate = Effect.fn("Sessions.orchestrate")(function*(projectRef: string | undefined, cliPath: string) {
    const config = yield* configs.current
    const project = yield* findProject(config, projectRef)
    return yield* startOrchestrator(config, project, cliPath).pipe(plugins.provide(config, project), orchestrating.withPermits(1))
  })
  const { spawn } = yield* Spawner
  const { batchSpawn } = yield* BatchSpawner
  const { send } = yield* Sender
  const { kill } = yield* Killer
  const { restore } = yield* Restorer
  const { cleanup, issueStates } = yield* Cleaner
  const { remove, prune } = yield* Remover
  const { reconcile } = yield* Reconciler
  const { probeAll } = yield* Prober
  const { queueAdd, queueTask, queueRemove, queueList, admit } = yield* QueueProcedures
  return SessionManager.of({
    spawn,
    batchSpawn,
    send,
    kill,
    restore,
    cleanup,
    remove,
    prune,
    issueStates,
    reconcile,
    probeAll,
    orchestrate,
    read: store.read,
    queueAdd,
    queueTask,
    queueRemove,
    queueList,
    admit
  })
})

export class SessionManager extends Context.Service<SessionManager, SessionManagerShape>()("orch/sessions/SessionManager") {
  /** On the ConfigSource in context: the supervisor's, which its reload changes. */
  static readonly layerFollowing = Layer.effect(SessionManager, make).pipe(Layer.provide(procedures))
  /**
   * On `config`, which it also provides as the ConfigSource (needs the store, the event log, ProjectPlugins and a
   * ChildProcessSpawner).
   */
  static readonly layerNoDeps = (config: OrchestratorConfig) => SessionManager.layerFollowing.pipe(Layer.provideMerge(ConfigSource.layer(config)))
  /** For the CLI's in-process procedures: this process is not the supervisor. */
  static readonly layer = (config: OrchestratorConfig) =>
    SessionManager.layerNoDeps(config).pipe(
      Layer.provide(ProjectPlugins.layer({ supervisor: false })),
      Layer.provide(Layer.mergeAll(SessionStore.layer, EventLog.layer))
    )
}
