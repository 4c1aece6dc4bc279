/**
 * `orch session cleanup`: sessions whose PR merged or closed, whose issue is completed, or whose agent is gone end,
 * each with the status and reason cleanup-decision.ts gives it; their terminals stop and their worktrees go (what
 * was unsaved in them saved to their rescue refs first).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { type SessionRecord, worksAnIssue } from "../domain/session.ts"
import type { Liveness } from "../plugins/runtime/Runtime.ts"
import { Runtime } from "../plugins/runtime/Runtime.ts"
import { type IssueState, Tracker } from "../plugins/tracker/Tracker.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { cleanupVerdict, isCleanable, settledVerdict } from "./cleanup-decision.ts"
import type { CleanupError } from "./procedure-errors.ts"
import { projectOf, projectsOf } from "./project-lookup.ts"
import { Reconciler } from "./Reconciler.ts"
import { nowIso, updateRecord } from "./record-update.ts"
import type { CleanupItem } from "./SessionOps.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { removeWorkspaceSafely, stopRuntime } from "./teardown.ts"

/** The workflow state of live workers' issues, per session id, and the trackers that could not be asked (with why). */
export interface IssueStates {
  readonly states: ReadonlyMap<string, IssueState>
  readonly unanswered: ReadonlyArray<{ readonly name: string; readonly reason: string }>
}

export interface CleanerShape {
  /** Ends what is done (a dry run only says what it would end). */
  readonly cleanup: (options: { readonly dryRun: boolean }) => Effect.Effect<ReadonlyArray<CleanupItem>, CleanupError>
  /**
   * The workflow state of `records`' live workers' issues: one request per project whose tracker can tell
   * (`issueStates`); a tracker that could not be asked tells nothing, and cleanup goes on without it.
   */
  readonly issueStates: (records: ReadonlyArray<SessionRecord>) => Effect.Effect<IssueStates>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const reconciler = yield* Reconciler

  const issueStates = Effect.fn("Sessions.issueStates")(function*(records: ReadonlyArray<SessionRecord>) {
    const config = yield* configs.current
    const states = new Map<string, IssueState>()
    const unanswered: Array<{ readonly name: string; readonly reason: string }> = []
    for (const project of projectsOf(config)) {
      const mine = records.filter((r) => r.projectId === project.id && worksAnIssue(r) && r.endedAt === undefined)
      if (mine.length === 0) continue
      const byIssue = yield* Tracker.use((tracker) =>
        tracker.issueStates?.([...new Set(mine.map((r) => r.issueId))]) ?? Effect.succeed(new Map<string, IssueState>())
      ).pipe(
        plugins.provide(config, project),
        Effect.catch((error) => {
          unanswered.push({ name: `${project.id}'s tracker`, reason: error.message })
          return Effect.succeed<ReadonlyMap<string, IssueState>>(new Map())
        })
      )
      for (const record of mine) {
        const state = byIssue.get(record.issueId)
        if (state !== undefined) states.set(record.sessionId, state)
      }
    }
    return { states, unanswered } satisfies IssueStates
  })

  /**
   * Sessions whose PR merged or closed, whose issue is completed, or whose agent is gone, each with the status and
   * reason cleaning gives it. Terminals are probed once per project, and only for sessions that neither their PR nor
   * their issue settles.
   */
  const candidates = Effect.fn("Sessions.cleanupCandidates")(function*(config: OrchestratorConfig) {
    const projects = projectsOf(config)
    const { records } = yield* store.list
    const { states, unanswered } = yield* issueStates(records)
    for (const { name, reason } of unanswered) yield* Effect.logWarning(`${name} could not tell which issues are done (${reason}); cleanup goes on without it`)
    const mine = records.filter((r) => isCleanable(r) && projects.some((p) => p.id === r.projectId))
    const unsettled = mine.filter((r) => r.runtime !== null && settledVerdict(r, states.get(r.sessionId)) === undefined)
    const liveness = new Map<string, Liveness>()
    for (const project of projects) {
      const handles = unsettled.filter((r) => r.projectId === project.id).map((r) => r.runtime!)
      if (handles.length === 0) continue
      const probed = yield* Runtime.use((runtime) => runtime.probe(handles)).pipe(plugins.provide(config, project))
      for (const [id, state] of probed) liveness.set(id, state)
    }
    return mine.flatMap((record): ReadonlyArray<CleanupItem> => {
      const scm = projects.find((p) => p.id === record.projectId)?.scm
      const verdict = cleanupVerdict(record, {
        issueState: states.get(record.sessionId),
        liveness: record.runtime !== null ? liveness.get(record.runtime.id) : undefined,
        followsPrs: scm !== undefined && scm.plugin !== "none"
      })
      return verdict === undefined ? [] : [{ record, ...verdict }]
    })
  })

  /**
   * Ends one session cleanup found done: its terminal stopped, its worktree saved and removed, `session.cleaned`. The
   * ending is written on the record as it is then, not as cleanup listed it: the supervisor's actor may have written
   * it meanwhile (its PR merged: then it ends as merged, whatever else made cleanup find it done).
   */
  const clean = Effect.fnUntraced(function*(config: OrchestratorConfig, listed: CleanupItem) {
    const project = yield* projectOf(config, listed.record)
    const removed = yield* Effect.gen(function*() {
      yield* stopRuntime(listed.record.runtime)
      return yield* removeWorkspaceSafely(project, listed.record, listed.record.workspacePath, listed.record.branch)
    }).pipe(plugins.provide(config, project))
    const record = yield* store.read(listed.record.sessionId).pipe(Effect.catchTag("SessionNotFound", () => Effect.succeed(undefined)))
    // Ended (a kill) or removed meanwhile by someone else: that stands, told once by whoever did it.
    if (record === undefined || !isCleanable(record)) return { ...listed, record: record ?? listed.record, ...removed } satisfies CleanupItem
    const item: CleanupItem = { ...listed, ...settledVerdict(record), record }
    const ended = yield* updateRecord(store, record, {
      status: item.status,
      activity: "exited",
      endedAt: yield* nowIso,
      ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {})
    })
    yield* events.append({
      type: "session.cleaned",
      sessionId: record.sessionId,
      projectId: record.projectId,
      issueId: record.issueId,
      ...(record.pr !== null ? { prNumber: record.pr.number } : {}),
      message: item.reason,
      data: { status: item.status, cause: item.cause, ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {}) }
    })
    return { ...item, record: ended, ...removed } satisfies CleanupItem
  })

  const cleanup = Effect.fn("Sessions.cleanup")(function*(options: { readonly dryRun: boolean }) {
    const config = yield* configs.current
    if (!options.dryRun) yield* reconciler.reconcile()
    const found = yield* candidates(config)
    if (options.dryRun) return found
    const cleaned: Array<CleanupItem> = []
    for (const item of found) cleaned.push(yield* clean(config, item))
    return cleaned
  })

  return Cleaner.of({ cleanup, issueStates })
})

export class Cleaner extends Context.Service<Cleaner, CleanerShape>()("orch/sessions/Cleaner") {
  /** Needs the config in force, the store, the event log, SessionPlugins and the Reconciler. */
  static readonly layer = Layer.effect(Cleaner, make)
}
