/**
 * Spawning a session, in the spec's order: the id reserved and the first record written (spawn-reserve.ts), the
 * worktree and branch, the agent's files, the terminal session `<prefix>-<n>` with the agent launched in it
 * (spawn-here.ts, or spawn-on-host.ts on another host), the look at its start, the record whole, the
 * `session.spawned` event. Each step writes what it is about to make into the record's spawn journal first, and
 * undoes what it made if a later step fails (a Scope finalizer that sees the failure), so a failed spawn leaves
 * nothing behind and one killed half-way can be undone later.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { ProjectConfig } from "../config/schema.ts"
import { isIssueId, ISSUE_ID_EXPECTED } from "../domain/issue-id.ts"
import type { RuntimeHandle, SessionRecord } from "../domain/session.ts"
import { taskTitle } from "../domain/task.ts"
import { InvalidIssueId } from "../plugins/tracker/Tracker.ts"
import { EventLog } from "../store/EventLog.ts"
import { checkAgentProgram, waitUntilReady } from "./agent-start.ts"
import { EmptyTask, type SpawnFailed } from "./errors.ts"
import { nowIso } from "./record-update.ts"
import type { Spawned, SpawnTarget } from "./SessionOps.ts"
import type { SessionDraft } from "./spawn-draft.ts"
import { startHere } from "./spawn-here.ts"
import { lookupIssue } from "./spawn-issue.ts"
import { startOnHost } from "./spawn-on-host.ts"
import { spawnedEvent } from "./spawn-record.ts"
import { draftSession, reserveSession } from "./spawn-reserve.ts"
import { beginRun, spawnFailed, type SpawnOptions, type SpawnRun, withLeftBehind, workOf } from "./spawn-run.ts"

/**
 * Whole. The journal stays, saying where in the event log `session.spawned` belongs, until that is written. The
 * record is staged while the look at the agent's start (if any) ends, and says the session works only once it saw
 * the agent alive.
 */
const recordWhole = Effect.fnUntraced(function*(draft: SessionDraft, handle: RuntimeHandle, watching: Fiber.Fiber<void, SpawnFailed> | undefined) {
  const { run } = draft
  const announce = yield* run.events.size
  const now = yield* nowIso
  // Active since now: the time agent-stuck counts from when the screen alone says what the agent does.
  const whole: SessionRecord = {
    ...draft.record,
    status: "working",
    activity: "active",
    activitySince: now,
    runtime: handle,
    updatedAt: now,
    spawn: { ...draft.record.spawn!, announce }
  }
  const staged = yield* run.store.stage(whole).pipe(Effect.mapError(spawnFailed(run, "writing the session record")))
  if (watching !== undefined) yield* Fiber.join(watching).pipe(Effect.onError(() => staged.discard))
  yield* staged.commit.pipe(Effect.mapError(spawnFailed(run, "writing the session record")))
  draft.record = whole
  return whole
})

/** The session made whole, step by step, in the spawn's scope (which undoes what was made when a step fails). */
const makeSession = Effect.fnUntraced(function*(run: SpawnRun) {
  const issueFiber = yield* Effect.forkScoped(lookupIssue(run))
  const originFiber = run.onHost === undefined || run.options.hostOrigin !== undefined ? undefined : yield* Effect.forkScoped(run.onHost.origin(run.project))
  // A tracker that names branches is waited for: the branch is made next.
  const early = run.work._tag === "Issue" && run.tracker.namesBranches === true ? yield* Fiber.join(issueFiber) : undefined
  const sessionId = yield* reserveSession(run)
  const takenOnHost = new Set<string>()
  const draft = yield* draftSession(run, sessionId, early, takenOnHost)
  const { handle, launch, watching } = run.onHost === undefined
    ? yield* startHere(draft, issueFiber)
    : yield* startOnHost(draft, run.onHost, issueFiber, originFiber, takenOnHost)
  if (launch.initialMessage !== undefined) {
    yield* waitUntilReady(run.runtime, run.agent, handle).pipe(Effect.mapError(spawnFailed(run, "waiting for the agent")))
    yield* run.runtime.send(handle, launch.initialMessage).pipe(Effect.mapError(spawnFailed(run, "giving the agent its task")))
  }
  return yield* recordWhole(draft, handle, watching)
})

/** The session runs: an event that cannot be recorded is told, not a failure of the spawn; then its journal goes. */
const announce = Effect.fnUntraced(function*(run: SpawnRun, spawned: SessionRecord) {
  yield* run.events.append(spawnedEvent(spawned)).pipe(
    Effect.catch((error) => Effect.sync(() => void run.warnings.push(`the session.spawned event could not be recorded: ${error.message}`)))
  )
  const { spawn: _journal, ...announced } = spawned
  yield* run.store.write(announced, { durable: false }).pipe(
    Effect.catch((error) => Effect.logWarning(`${spawned.sessionId}'s record keeps its spawn journal (${error.message}); the next command clears it`))
  )
  return { record: announced, warnings: run.warnings } satisfies Spawned
})

export const spawnSession = Effect.fn("Sessions.spawn")(function*(project: ProjectConfig, target: SpawnTarget, options: SpawnOptions = {}) {
  const work = workOf(target)
  if (work._tag === "Issue" && !isIssueId(work.issueRef)) return yield* new InvalidIssueId({ issueId: work.issueRef, expected: ISSUE_ID_EXPECTED })
  if (work._tag === "Task" && work.text === "") return yield* new EmptyTask({})
  const run = yield* beginRun(project, work, options)
  // On another host the agent's program is looked for there, when it starts (watchStart reports what it printed).
  if (!run.remote) yield* checkAgentProgram(run.agent, project).pipe(Effect.mapError(spawnFailed(run, "checking the agent")))
  const spawned = yield* Effect.scoped(makeSession(run)).pipe(
    Effect.mapError((error) => withLeftBehind(error, run.leftBehind)),
    Effect.tapError((error) =>
      error._tag === "SpawnFailed" || run.leftBehind.length === 0
        ? Effect.void
        : Effect.logWarning(`undoing the failed spawn, orch ${run.leftBehind.join("; and ")}`)
    )
  )
  return yield* announce(run, spawned)
}, (effect, project, target, _options) => {
  // A spawn that failed, or was cancelled (its orch stopped, a client went away) and undid what it made, says so.
  const told = (message: string) =>
    EventLog.use((events) => {
      const work = workOf(target)
      return events.append({
        type: "session.spawn_failed",
        projectId: project.id,
        issueId: work.label,
        message,
        ...(work._tag === "Task" ? { data: { task: taskTitle(work.text) } } : {})
      })
    }).pipe(Effect.catch((appendError) => Effect.logWarning(`the session.spawn_failed event could not be recorded: ${appendError.message}`)))
  return effect.pipe(
    Effect.tapError((error) => told(error.message)),
    Effect.onInterrupt(() =>
      told("the spawn was cancelled (its orch process or the supervisor stopped, or whoever asked went away); what it had made was undone")
    )
  )
})
