/**
 * A spawn where placement puts it (host-choice.ts), after reconcile. A failure of that host (failure-owner.ts) holds
 * it back for the project (src/domain/holds.ts), and a person's spawn is placed again without it, saying so;
 * admission's spawns (`claim`) leave that to admission. An issue a person starts leaves the queue.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { heldHosts } from "../domain/holds.ts"
import { normalIssueId } from "../domain/issue-id.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { isEnded, type SessionRecord, worksAnIssue } from "../domain/session.ts"
import type { HostConnectionsShape } from "../hosts/HostConnections.ts"
import { EventLog } from "../store/EventLog.ts"
import { readHolds } from "../store/holds-file.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { owesReconcile } from "../store/spawner.ts"
import { IssueHasSession } from "./errors.ts"
import { failureOwner } from "./failure-owner.ts"
import { liftHolds, recordHold } from "./hold-changes.ts"
import { chooseHost } from "./host-choice.ts"
import type { SpawnError } from "./procedure-errors.ts"
import { findProject } from "./project-lookup.ts"
import { Reconciler } from "./Reconciler.ts"
import { readMeasured } from "./reservations.ts"
import type { SpawnTarget } from "./SessionOps.ts"
import type { Spawned } from "./SessionOps.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { SessionQueue } from "./SessionQueue.ts"
import type { SpawnOptions } from "./spawn-run.ts"
import { spawnSession } from "./spawn.ts"

export interface SpawnInOptions extends Pick<SpawnOptions, "claim" | "drafted" | "refuseClosed" | "priority"> {
  /**
   * "owed": reconcile only when the records owe this spawn one (`owesReconcile`), as a running supervisor asks:
   * its start and its probe cycle do the rest. Absent: reconcile first, as every command without a supervisor does.
   */
  readonly reconcile?: "owed"
}

export interface SpawnerShape {
  /** Spawns a session of the project `projectRef` names for `target`, where placement puts it. */
  readonly spawn: (projectRef: string, target: SpawnTarget, options?: SpawnInOptions) => Effect.Effect<Spawned, SpawnError>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const reconciler = yield* Reconciler
  const { queue } = yield* SessionQueue
  const root = store.paths.root

  /**
   * The records as a spawn starts from them: reconciled first, unless a running supervisor's records owe nothing;
   * with what reconciling finished or undid, for the person to hear.
   */
  const reconciled = Effect.fnUntraced(function*(options: SpawnInOptions) {
    const listed = options.reconcile === "owed" ? (yield* store.list).records : undefined
    if (listed !== undefined && !owesReconcile(listed)) return { listed, recovered: [] }
    const recovered = (yield* reconciler.reconcile()).map((done) => done.line)
    return { listed: (yield* store.list).records, recovered }
  })

  /** One placement on fresh readings (held hosts left out, unless `--host` names its own), and the spawn there. */
  const placeAndSpawn = Effect.fnUntraced(function*(
    connections: HostConnectionsShape,
    config: OrchestratorConfig,
    project: ProjectConfig,
    target: SpawnTarget,
    options: SpawnInOptions,
    listed: ReadonlyArray<SessionRecord> | undefined
  ) {
    const now = yield* Clock.currentTimeMillis
    const held = target.host !== undefined ? new Map<string, string>() : heldHosts(yield* readHolds(root), project.id, now, clockTime(now))
    const current = listed ?? (yield* store.list).records
    const { reserved } = yield* readMeasured(root, current)
    const { host, dataDir, origin, unread } = yield* chooseHost(connections, config, project, current, reserved, target.host, held)
    const placed = yield* spawnSession(project, target, {
      configPath: config.configPath,
      host,
      hostDataDir: dataDir,
      hostOrigin: origin,
      claim: options.claim,
      drafted: options.drafted,
      refuseClosed: options.refuseClosed,
      priority: options.priority
    }).pipe(plugins.provide(config, project, host), Effect.result)
    return { host, unread, placed }
  })

  /** An issue a person started with `orch spawn` leaves the queue: it is not waiting any more (an entry being started is left to its admission). */
  const unqueue = (projectId: string, issueId: string, sessionId: string) =>
    queue.list.pipe(
      Effect.flatMap((entries) =>
        Effect.forEach(
          entries.filter((entry) => entry.projectId === projectId && entry.issue === issueId && entry.admitting === undefined),
          (entry) => queue.drop(entry.id, `${entry.id} (issue ${issueId}) left the queue: orch spawn started it as ${sessionId}`, { sessionId }),
          { discard: true }
        )
      ),
      // The session runs; a queue that could not be changed is said, and admission drops the entry later (it has a session).
      Effect.catch((error) => Effect.logWarning(`issue ${issueId} stays queued although ${sessionId} works it: ${error.message}`))
    )

  const spawn = Effect.fn("Sessions.spawnIn")(function*(projectRef: string, target: SpawnTarget, options: SpawnInOptions = {}) {
    const config = yield* configs.current
    const project = yield* findProject(config, projectRef)
    const { listed, recovered } = yield* reconciled(options)
    if (target._tag === "Issue") {
      const issueId = normalIssueId(target.issue)
      const existing = listed.find((r) => r.projectId === project.id && r.issueId === issueId && !isEnded(r.status) && worksAnIssue(r))
      if (existing !== undefined) {
        return yield* new IssueHasSession({ issueId, sessionId: existing.sessionId, ...(existing.status === "spawning" ? { spawning: true } : {}) })
      }
    }
    const connections = yield* plugins.connections(config)
    const warnings: Array<string> = []
    // Each placement after the first lists again: the failed try changed the records.
    let records: ReadonlyArray<SessionRecord> | undefined = listed
    for (let tries = 0;; tries++) {
      const { host, unread, placed } = yield* placeAndSpawn(connections, config, project, target, options, records)
      records = undefined
      if (placed._tag === "Success") {
        yield* liftHolds(root, events, project.id, host, "a spawn there succeeded")
        const spawned = {
          ...placed.success,
          warnings: [...(unread ?? []), ...warnings, ...placed.success.warnings],
          ...(recovered.length > 0 ? { recovered } : {})
        }
        if (target._tag === "Issue") yield* unqueue(project.id, spawned.record.issueId, spawned.record.sessionId)
        return spawned
      }
      const owner = failureOwner(placed.failure)
      // With this machine alone there is nowhere else: the person hears why, and admission learns for itself.
      if (owner._tag !== "Host" || options.claim !== undefined || Object.keys(config.hosts).length === 0) return yield* Effect.fail(placed.failure)
      yield* recordHold(root, events, { project: project.id, host: owner.host }, owner.reason)
      // Another host may take it: placed again without this one (the hold leaves it out), once per host at most.
      if (target.host !== undefined || tries >= Object.keys(config.hosts).length) return yield* Effect.fail(placed.failure)
      warnings.push(`host ${owner.host} could not take the session (${owner.reason}); orch leaves it out for ${project.id} for now and placed it again`)
    }
  })

  return Spawner.of({ spawn })
})

export class Spawner extends Context.Service<Spawner, SpawnerShape>()("orch/sessions/Spawner") {
  /** Needs the config in force, the store, the event log, SessionPlugins, SessionQueue and the Reconciler. */
  static readonly layer = Layer.effect(Spawner, make)
}
