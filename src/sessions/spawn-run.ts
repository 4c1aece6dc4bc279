/**
 * One spawn under way (spawn.ts): what it is for, the slots it uses, what it has learned so far and what it could not
 * undo. Its steps share it; it lives as long as the spawn.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ProjectConfig } from "../config/schema.ts"
import { normalIssueId } from "../domain/issue-id.ts"
import { reasonOf } from "../domain/reason.ts"
import { Agent, type AgentShape } from "../plugins/agent/Agent.ts"
import { HostStart, type HostStartShape } from "../plugins/host-start.ts"
import { Runtime, type RuntimeShape } from "../plugins/runtime/Runtime.ts"
import { Tracker, type TrackerShape } from "../plugins/tracker/Tracker.ts"
import { Workspace, type WorkspaceShape } from "../plugins/workspace/Workspace.ts"
import { EventLog, type EventLogShape } from "../store/EventLog.ts"
import { SessionStore, type SessionStoreShape } from "../store/SessionStore.ts"
import { SpawnFailed } from "./errors.ts"
import type { SpawnTarget } from "./SessionOps.ts"
import { taskSlug } from "./task.ts"

/** What a spawn is for, checked: an issue's id, or a task's text with its slug (the branch is chosen later). */
export type Work =
  | { readonly _tag: "Issue"; readonly issueRef: string; readonly label: string }
  | { readonly _tag: "Task"; readonly text: string; readonly label: string }

export const workOf = (target: SpawnTarget): Work =>
  target._tag === "Issue"
    ? { _tag: "Issue", issueRef: target.issue, label: normalIssueId(target.issue) }
    : { _tag: "Task", text: target.task.trim(), label: taskSlug(target.task) }

/** Why a claim failed: the entry was taken meanwhile, or the queue could not be written. */
export interface ClaimError {
  readonly _tag: "EntryTaken" | "StoreError" | "LockTimeout"
  readonly message: string
}

export interface SpawnOptions {
  /** The config file the spawn runs under, remembered in the record. */
  readonly configPath?: string | undefined
  /** The host it runs on (the plugins given are that host's); absent: local. */
  readonly host?: string | undefined
  /** orch's data dir on that host as an absolute path, when the placement's reading named it (saves asking). */
  readonly hostDataDir?: string | undefined
  /** The project's origin, when placement read it (saves asking again). */
  readonly hostOrigin?: string | undefined
  /**
   * Called with the session id once it is reserved, before anything is made: admission marks its queue entry there,
   * so a crash from then on leaves the entry naming the session (src/sessions/queue-recovery.ts). Its failure fails
   * the spawn.
   */
  readonly claim?: ((sessionId: string) => Effect.Effect<void, ClaimError>) | undefined
  /**
   * Run once the session's first record is written, from when it counts among the sessions: admission decides on its
   * next entry, beside this spawn, only then (src/sessions/admission-rounds.ts).
   */
  readonly drafted?: Effect.Effect<void> | undefined
  /** An issue its tracker says is over (closed, done) is not started (IssueClosed): queued work, not a person's spawn. */
  readonly refuseClosed?: boolean | undefined
  /** The queue priority of the entry it starts (admission), kept on the record. */
  readonly priority?: number | undefined
}

export interface SpawnRun {
  readonly project: ProjectConfig
  readonly work: Work
  readonly options: SpawnOptions
  readonly store: SessionStoreShape
  readonly events: EventLogShape
  readonly runtime: RuntimeShape
  readonly agent: AgentShape
  readonly workspace: WorkspaceShape
  readonly tracker: TrackerShape
  /** It runs on another host. */
  readonly remote: boolean
  /** There, the start as one script (src/plugins/host-start.ts), when that host's plugins give one. */
  readonly onHost: HostStartShape | undefined
  /** The issue id the session works: a task's is its branch's slug, once the branch is chosen. */
  issueId: string
  /** The tracker could not be asked: the agent is told its issue by id alone. */
  unavailable: boolean
  /** Whether undoing this spawn saved what its agent had written (to the rescue ref of its session id). */
  rescued: boolean
  readonly warnings: Array<string>
  /** What undoing a failed spawn could not undo; its SpawnFailed says so. */
  readonly leftBehind: Array<string>
}

/** A spawn of `work` begins, with the plugins of `project` (the host's, for another host) in context. */
export const beginRun = Effect.fnUntraced(function*(project: ProjectConfig, work: Work, options: SpawnOptions) {
  const remote = options.host !== undefined && options.host !== "local"
  const run: SpawnRun = {
    project,
    work,
    options,
    store: yield* SessionStore,
    events: yield* EventLog,
    runtime: yield* Runtime,
    agent: yield* Agent,
    workspace: yield* Workspace,
    tracker: yield* Tracker,
    remote,
    onHost: remote ? Option.getOrUndefined(yield* Effect.serviceOption(HostStart)) : undefined,
    issueId: work.label,
    unavailable: false,
    rescued: false,
    warnings: [],
    leftBehind: []
  }
  return run
})

/** The spawn failed at `step` (as people read it: "creating the workspace"), for `error`'s reason. */
export const spawnFailed = (run: SpawnRun, step: string) => (error: { readonly message: string; readonly branchUnusable?: boolean } | string) =>
  new SpawnFailed({
    project: run.project.key,
    issueId: run.issueId,
    ...(run.work._tag === "Task" ? { task: true } : {}),
    step,
    reason: typeof error === "string" ? error : error.message,
    ...(run.remote ? { host: run.options.host! } : {}),
    ...(typeof error !== "string" && error.branchUnusable === true ? { branchUnusable: true } : {})
  })

/** Undoes something the spawn made; what cannot be undone is remembered for its SpawnFailed, not failed on. */
export const undoing = <E>(run: SpawnRun, what: string, effect: Effect.Effect<void, E>) =>
  effect.pipe(Effect.catchCause((cause) => Effect.sync(() => void run.leftBehind.push(`could not ${what}: ${reasonOf(cause)}`))))

/** A spawn's failure, naming what its undoing left behind. */
export const withLeftBehind = <E>(error: E, leftBehind: ReadonlyArray<string>): E | SpawnFailed =>
  error instanceof SpawnFailed && leftBehind.length > 0
    ? new SpawnFailed({
      project: error.project,
      issueId: error.issueId,
      ...(error.task !== undefined ? { task: error.task } : {}),
      step: error.step,
      reason: error.reason,
      ...(error.host !== undefined ? { host: error.host } : {}),
      ...(error.branchUnusable !== undefined ? { branchUnusable: error.branchUnusable } : {}),
      leftBehind: [...leftBehind]
    })
    : error
