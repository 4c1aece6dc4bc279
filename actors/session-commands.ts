/**
 * The session procedures as the supervisor serves them (over its socket, and the dashboard's actions): the
 * SessionManager's, with the actors kept in step. send, kill, restore are commands to the session's actor
 * (actor-mailbox.ts), so nothing else writes its record meanwhile; what starts or ends sessions starts or stops their
 * actors and wakes admission. A restore of a session orch stopped watching (escalated) has it watched again, also
 * when its agent still runs.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SessionRunning } from "../src/sessions/errors.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import type { Removed, SessionOps } from "../src/sessions/SessionOps.ts"
import { waitingReason } from "../src/store/admission-file.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { ActorEscalations } from "./actor-escalations.ts"
import { Admission } from "./admission.ts"
import { ProbeCycle } from "./probe-cycle.ts"
import { SessionActors } from "./session-actors.ts"
import { WatchedProjects } from "./watched-projects.ts"

export class SessionCommands extends Context.Service<SessionCommands, SessionOps>()("orch/actors/SessionCommands") {
  static readonly layer = Layer.effect(SessionCommands, Effect.suspend(() => make))
}

const make = Effect.gen(function*() {
  const manager = yield* SessionManager
  const store = yield* SessionStore
  const actors = yield* SessionActors
  const escalations = yield* ActorEscalations
  const admission = yield* Admission
  const probe = yield* ProbeCycle
  const projects = yield* WatchedProjects

  /**
   * Removes an ended session's record with its actor stopped first, once it has handled what it had (an actor writing
   * after would bring the record back); when the removal is refused, the actors of live records start again.
   */
  const removeStopped = (sessionId: string, command: "rm" | "prune") =>
    actors.drained(sessionId).pipe(
      Effect.andThen(actors.stop(sessionId)),
      Effect.andThen(manager.remove(sessionId, command)),
      Effect.tapError(() => actors.startLive)
    )

  /** Restores the session; one orch stopped watching whose agent still runs is only watched again. */
  const restore = (sessionId: string) =>
    actors.command(sessionId, manager.restore(sessionId)).pipe(
      Effect.catchIf((error) => error instanceof SessionRunning, (running) =>
        Effect.flatMap(store.read(sessionId), (record) => (escalations.isEscalated(record) ? Effect.succeed(record) : Effect.fail(running)))),
      Effect.tap(() =>
        Effect.andThen(Effect.andThen(actors.stop(sessionId), escalations.clear(sessionId)), actors.startLive)
      )
    )

  return SessionCommands.of({
    // The new session's actor starts from the record the spawn answers with: no listing of every record first. The
    // spawn reconciles only what it is owed: this supervisor's start and its probe cycle undo the rest.
    spawn: (project, target) =>
      Effect.tap(manager.spawn(project, target, { reconcile: "owed" }), ({ record }) => (projects.isLive(record) ? actors.start(record) : Effect.void)),
    batchSpawn: (project, issues, onOutcome) =>
      Effect.tap(manager.batchSpawn(project, issues, onOutcome), () => Effect.andThen(actors.startLive, admission.soon)),
    send: (sessionId, message) => actors.command(sessionId, manager.send(sessionId, message)),
    // A kill is carried out whole once begun, even if whoever asked goes away (a closed tab, a killed `orch`): cut
    // short here, by a process that lives on, nothing would finish it.
    kill: (sessionId) =>
      Effect.tap(
        actors.command(sessionId, Effect.uninterruptible(manager.kill(sessionId))),
        () => Effect.andThen(Effect.andThen(actors.stop(sessionId), escalations.clear(sessionId)), admission.soon)
      ),
    queueAdd: (project, issues, priority) => Effect.tap(manager.queueAdd(project, issues, priority), () => admission.soon),
    queueTask: (project, task, priority) => Effect.tap(manager.queueTask(project, task, priority), () => admission.soon),
    queueList: () =>
      Effect.map(manager.queueList(), (entries) => {
        const state = { pid: process.pid, at: "", waiting: Object.fromEntries(admission.waiting()) }
        return entries.map((entry) => ({ ...entry, reason: waitingReason(state, process.pid, entry) }))
      }),
    queueRemove: (ref) => manager.queueRemove(ref),
    restore,
    cleanup: (options) => Effect.tap(manager.cleanup(options), () => probe.cycleNow),
    remove: (sessionId) => removeStopped(sessionId, "rm"),
    prune: (options) =>
      options.dryRun ? manager.prune(options) : Effect.gen(function*() {
        // What a dry run would remove, each then removed as `rm` would, its actor stopped first.
        const plan = yield* manager.prune({ dryRun: true })
        const removed: Array<Removed> = []
        const kept = [...plan.kept]
        for (const candidate of plan.removed) {
          const result = yield* Effect.result(removeStopped(candidate.sessionId, "prune"))
          if (result._tag === "Success") removed.push(result.success)
          else kept.push({ sessionId: candidate.sessionId, reason: result.failure.message })
        }
        return { removed, kept }
      })
  })
})
