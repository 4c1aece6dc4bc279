/**
 * `orch session rm` and `prune`: an ended session's terminal, worktree (only when it holds nothing unsaved) and record
 * go, and `session.removed` says so; git refs stay. removal.ts decides which may go.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync } from "node:fs"
import { ConfigSource } from "../config/ConfigSource.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { asAgentGone, isLive, type SessionRecord } from "../domain/session.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { RemoveRefused } from "./errors.ts"
import { liveness, probed } from "./liveness.ts"
import type { PruneError, RemoveError } from "./procedure-errors.ts"
import { projectsOf } from "./project-lookup.ts"
import { Reconciler } from "./Reconciler.ts"
import { projectToEnd } from "./recorded-project.ts"
import { factsWithoutPlugins, REMOVABLE_STATUSES, type RemovalFacts, type RemovalVerdict, removalVerdict } from "./removal.ts"
import type { PruneReport, Removed } from "./SessionOps.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { stopRuntime } from "./teardown.ts"

export interface RemoverShape {
  /** Removes an ended session's record and files; refuses a live one, or one with unsaved work (RemoveRefused). */
  readonly remove: (sessionId: string, command?: "rm" | "prune") => Effect.Effect<Removed, RemoveError>
  /**
   * Removes every ended session's record that can go (a live one whose agent is gone has ended too); says why of those
   * that cannot. A live session whose agent runs, or cannot be looked at, is not ended: it is left out of the report.
   */
  readonly prune: (options: { readonly dryRun: boolean }) => Effect.Effect<PruneReport, PruneError>
}

/** What a dry run says it would remove. */
const wouldRemove = (record: SessionRecord, ended: boolean): Removed => ({
  sessionId: record.sessionId,
  projectId: record.projectId,
  status: ended ? record.status : asAgentGone(record).status,
  worktreeRemoved: existsSync(record.workspacePath),
  ...(record.rescueRef !== undefined ? { rescueRef: record.rescueRef } : {})
})

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const reconciler = yield* Reconciler

  /**
   * What removing `record` would cut short or lose: its terminal's liveness, its worktree's unsaved work. A live
   * session's agent whose host does not answer is not known to be gone.
   */
  const removalFacts = Effect.fnUntraced(function*(config: OrchestratorConfig, record: SessionRecord) {
    const project = projectToEnd(projectsOf(config), record)
    if (project === undefined) return factsWithoutPlugins(record, existsSync(record.workspacePath))
    return yield* Effect.gen(function*() {
      const state = REMOVABLE_STATUSES.includes(record.status) ? yield* liveness(record) : yield* probed(record)
      const workspace = yield* Workspace
      const facts: RemovalFacts = {
        running: state === undefined ? undefined : state._tag === "Alive",
        worktree: (yield* workspace.exists(record.workspacePath)) ? yield* workspace.unsavedWork(project, record.workspacePath) : "absent"
      }
      return facts
    }).pipe(plugins.provide(config, project))
  })

  /** Removes an ended session's terminal, worktree (already checked to hold nothing unsaved) and record; one whose agent was found gone is told as the `errored` session it is. */
  const removeRecord = Effect.fnUntraced(function*(config: OrchestratorConfig, ended: SessionRecord, command: "rm" | "prune") {
    const record = REMOVABLE_STATUSES.includes(ended.status) ? ended : asAgentGone(ended)
    const project = projectToEnd(projectsOf(config), record)
    let worktreeRemoved = false
    if (project !== undefined) {
      yield* Effect.gen(function*() {
        yield* stopRuntime(record.runtime)
        const workspace = yield* Workspace
        worktreeRemoved = yield* workspace.exists(record.workspacePath)
        // Destroyed even when its directory is gone (deleted by hand): git keeps it registered until pruned.
        yield* workspace.destroy(project, record.workspacePath, { branch: record.branch, deleteBranch: false })
      }).pipe(plugins.provide(config, project))
    }
    yield* store.remove(record.projectId, record.sessionId)
    const removed: Removed = {
      sessionId: record.sessionId,
      projectId: record.projectId,
      status: record.status,
      worktreeRemoved,
      ...(record.rescueRef !== undefined ? { rescueRef: record.rescueRef } : {})
    }
    yield* events.append({
      type: "session.removed",
      sessionId: record.sessionId,
      projectId: record.projectId,
      issueId: record.issueId,
      message: `orch session ${command} removed its record (${record.status})`,
      data: { status: record.status, worktreeRemoved, ...(record.rescueRef !== undefined ? { rescueRef: record.rescueRef } : {}) }
    })
    return removed
  })

  const remove = Effect.fn("Sessions.remove")(function*(sessionId: string, command: "rm" | "prune" = "rm") {
    const config = yield* configs.current
    const record = yield* store.read(sessionId)
    const verdict = removalVerdict(record, yield* removalFacts(config, record), config.configPath)
    if (verdict._tag === "Keep") return yield* new RemoveRefused({ sessionId, reason: verdict.reason })
    return yield* removeRecord(config, record, command)
  })

  const prune = Effect.fn("Sessions.prune")(function*(options: { readonly dryRun: boolean }) {
    const config = yield* configs.current
    if (!options.dryRun) yield* reconciler.reconcile()
    const { records } = yield* store.list
    const removed: Array<Removed> = []
    const kept: Array<{ readonly sessionId: string; readonly reason: string }> = []
    for (const record of records) {
      const ended = REMOVABLE_STATUSES.includes(record.status)
      if (!ended && !isLive(record)) continue
      const facts = yield* Effect.result(removalFacts(config, record))
      if (!ended && (facts._tag === "Failure" || facts.success.running !== false)) continue
      const verdict: RemovalVerdict = facts._tag === "Failure"
        ? { _tag: "Keep", reason: `orch could not look at it: ${facts.failure.message}` }
        : removalVerdict(record, facts.success, config.configPath)
      if (verdict._tag === "Keep") kept.push({ sessionId: record.sessionId, reason: verdict.reason })
      else removed.push(options.dryRun ? wouldRemove(record, ended) : yield* removeRecord(config, record, "prune"))
    }
    return { removed, kept } satisfies PruneReport
  })

  return Remover.of({ remove, prune })
})

export class Remover extends Context.Service<Remover, RemoverShape>()("orch/sessions/Remover") {
  /** Needs the config in force, the store, the event log, SessionPlugins and the Reconciler. */
  static readonly layer = Layer.effect(Remover, make)
}
