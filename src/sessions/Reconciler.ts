/**
 * Reconcile: what a crash or a kill -9 cut short is finished or undone before a procedure changes anything. A spawn
 * whose process died half-way is undone (lists show it `interrupted`; undo-spawn.ts says how), the `session.spawned`
 * of one killed once whole is written, a kill cut short is finished, queue admissions a crash cut short are finished
 * or undone (queue-recovery.ts), and reservations that never got a record are dropped.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { statSync } from "node:fs"
import { tmpdir } from "node:os"
import { ConfigSource } from "../config/ConfigSource.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { hostOf, type SessionRecord } from "../domain/session.ts"
import { removeStaleEnvFiles } from "../plugins/runtime/launch-env.ts"
import { EventLog } from "../store/EventLog.ts"
import { attempt } from "../store/files.ts"
import { isProcessAlive } from "../store/process-liveness.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { interruptedSpawns, spawnerLives } from "../store/spawner.ts"
import { KillSteps } from "./KillSteps.ts"
import type { ReconcileError } from "./procedure-errors.ts"
import { projectsOf } from "./project-lookup.ts"
import { recoverQueue } from "./queue-recovery.ts"
import { projectToEnd } from "./recorded-project.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { SessionQueue } from "./SessionQueue.ts"
import { spawnedEvent } from "./spawn-record.ts"
import { undoneLine, undoSpawn } from "./undo-spawn.ts"

/** What reconcile did to a session, for people: undid a start cut short, finished a kill, or recovered a queue entry's start. */
export interface Reconciled {
  readonly sessionId: string
  readonly kind: "undone" | "killed" | "queue"
  readonly line: string
}

export interface ReconcilerShape {
  /** Finishes or undoes what was cut short (above); says what it did. */
  readonly reconcile: () => Effect.Effect<ReadonlyArray<Reconciled>, ReconcileError>
}

/** Reservations with no record after this long are dropped (their spawns are undone by reconcile once their process is gone). */
const ORPHAN_RESERVATION_MS = 60_000
/** An agent's environment file still there after this long was never read: its start was killed. */
const STALE_ENV_FILE_MS = 60_000

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const kills = yield* KillSteps
  const { queue, inFlight } = yield* SessionQueue

  /** Writes the `session.spawned` a spawn killed after its session was whole still owed (unless the log has it), and ends its journal. */
  const announceOwed = Effect.fnUntraced(function*(record: SessionRecord, from: number) {
    const written = (yield* events.linesFrom(from)).some((line) =>
      line.includes(`"type":"session.spawned"`) && line.includes(`"sessionId":"${record.sessionId}"`)
    )
    if (!written) yield* events.append(spawnedEvent(record))
    const { spawn: _journal, ...whole } = record
    yield* store.write(whole)
  })

  /** Undoes one interrupted spawn with its project's plugins (undo-spawn.ts): what it did, or undefined when its project left the config. */
  const undoInterrupted = (config: OrchestratorConfig, record: SessionRecord) => {
    const project = projectsOf(config).find((p) => p.id === record.projectId)
    return project === undefined ? Effect.succeed(undefined) : undoSpawn(project, record).pipe(plugins.provide(config, project, hostOf(record)))
  }

  /** Kills cut short (their process gone): finished, or only their event written, as they were asked. */
  const finishCutKills = Effect.fnUntraced(function*(config: OrchestratorConfig, records: ReadonlyArray<SessionRecord>) {
    const done: Array<Reconciled> = []
    for (const record of records) {
      const journal = record.killing
      if (journal === undefined || isProcessAlive(journal.pid, journal.startTime)) continue
      if (record.status === "killed") yield* kills.announce(record)
      else {
        const project = projectToEnd(projectsOf(config), record)
        if (project === undefined) continue
        const { removed } = yield* kills.finish(config, project, record)
        done.push({
          sessionId: record.sessionId,
          kind: "killed",
          line: `finished the kill of ${record.sessionId} that was cut short when its process (${journal.pid}) died${
            removed.rescuedTo !== undefined ? `; what was unsaved in its worktree is in ${removed.rescuedTo}` : ""
          }`
        })
      }
    }
    return done
  })

  /** Admissions a crash cut short: finished or undone (with the spawns they undid, in the order undone). */
  const recoverAdmissions = Effect.fnUntraced(function*(config: OrchestratorConfig) {
    const done: Array<Reconciled> = []
    const recovered = yield* recoverQueue({
      queue,
      store,
      orphaned: inFlight.orphaned,
      undoSpawn: (record) =>
        Effect.map(
          undoInterrupted(config, record),
          (spawn) => void (spawn !== undefined && done.push({ sessionId: spawn.sessionId, kind: "undone", line: undoneLine(spawn) }))
        )
    })
    for (const entry of recovered) {
      done.push({
        sessionId: entry.sessionId,
        kind: "queue",
        line: `${entry.entryId}'s start as ${entry.sessionId} was cut short: ${
          entry.outcome === "admitted" ? `${entry.sessionId} was whole, so it is admitted` : "it waits in the queue again, where it was"
        }`
      })
    }
    return done
  })

  /** Agents' environment files (they may hold secrets) of starts killed before their shell read them, and reservations that never got a record. */
  const dropLeftovers = Effect.fnUntraced(function*() {
    const now = Date.now()
    yield* attempt(tmpdir(), () => removeStaleEnvFiles(STALE_ENV_FILE_MS, now))
    for (const { projectId, sessionId } of yield* store.reservations) {
      const age = yield* Effect.sync(() => now - (statSync(store.paths.session(projectId, sessionId), { throwIfNoEntry: false })?.mtimeMs ?? now))
      if (age > ORPHAN_RESERVATION_MS) yield* store.release(projectId, sessionId)
    }
  })

  const reconcile = Effect.fn("Sessions.reconcile")(function*() {
    const config = yield* configs.current
    const done: Array<Reconciled> = []
    const { records } = yield* store.list
    for (const record of records) {
      if (record.spawn?.announce !== undefined && record.status !== "spawning" && !spawnerLives(record)) {
        yield* announceOwed(record, record.spawn.announce)
      }
    }
    done.push(...(yield* finishCutKills(config, records)))
    for (const record of interruptedSpawns(records)) {
      const spawn = yield* undoInterrupted(config, record)
      if (spawn !== undefined) done.push({ sessionId: spawn.sessionId, kind: "undone", line: undoneLine(spawn) })
    }
    done.push(...(yield* recoverAdmissions(config)))
    yield* dropLeftovers()
    return done
  })

  return Reconciler.of({ reconcile })
})

export class Reconciler extends Context.Service<Reconciler, ReconcilerShape>()("orch/sessions/Reconciler") {
  /** Needs the config in force, the store, the event log, SessionPlugins, SessionQueue and KillSteps. */
  static readonly layer = Layer.effect(Reconciler, make)
}
