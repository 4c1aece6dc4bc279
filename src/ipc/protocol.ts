/**
 * The supervisor's RPCs, spoken over a Unix socket (`~/.orchestrator/orch.sock`) by the CLI. Every payload is a
 * Schema; every failure crosses as a RemoteError that keeps the original message and exit code, so a command
 * prints the same thing whether the supervisor or the CLI itself ran it.
 */
import { Rpc, RpcGroup } from "effect/rpc"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { QueueEntry } from "../domain/queue.ts"
import { SessionRecord, SessionStatus } from "../domain/session.ts"
import { CleanedStatus, CleanupCause } from "../sessions/cleanup-decision.ts"
import type { SpawnTarget } from "../sessions/SessionOps.ts"

export class RemoteError extends Schema.TaggedError<RemoteError>()("RemoteError", {
  tag: Schema.String,
  reason: Schema.String,
  exitCode: Schema.Int
}) {
  override get message() {
    return this.reason
  }
  override get [Runtime.errorExitCode]() {
    return this.exitCode
  }
}

/** Any failure, as it crosses the socket. */
export const toRemoteError = (error: unknown): RemoteError => {
  if (error instanceof RemoteError) return error
  const e = error as { readonly _tag?: unknown; readonly message?: unknown; readonly [Runtime.errorExitCode]?: unknown }
  return new RemoteError({
    tag: typeof e?._tag === "string" ? e._tag : "Error",
    reason: typeof e?.message === "string" && e.message !== "" ? e.message : String(error),
    exitCode: typeof e?.[Runtime.errorExitCode] === "number" ? e[Runtime.errorExitCode] as number : 1
  })
}

export const SupervisorInfo = Schema.Struct({
  pid: Schema.Int,
  version: Schema.String,
  startedAt: Schema.String,
  projects: Schema.Array(Schema.String),
  sessions: Schema.Int,
  dashboardUrl: Schema.String,
  /** The config file it serves (and follows); none for a config made in code. */
  configPath: Schema.optionalKey(Schema.String)
})
export type SupervisorInfo = typeof SupervisorInfo.Type

/** A spawn for an issue (the plain form the fast path sends), or for a task a person wrote (`--task`). */
export const SpawnPayload = Schema.Union([
  Schema.Struct({ project: Schema.String, issue: Schema.String, host: Schema.optionalKey(Schema.String) }),
  Schema.Struct({ project: Schema.String, task: Schema.String, host: Schema.optionalKey(Schema.String) })
])
export type SpawnPayload = typeof SpawnPayload.Type

export const spawnPayload = (project: string, target: SpawnTarget): SpawnPayload => {
  const host = target.host !== undefined ? { host: target.host } : {}
  return target._tag === "Issue" ? { project, issue: target.issue, ...host } : { project, task: target.task, ...host }
}

export const spawnTarget = (payload: SpawnPayload): SpawnTarget => {
  const host = payload.host !== undefined ? { host: payload.host } : {}
  return "task" in payload ? { _tag: "Task", task: payload.task, ...host } : { _tag: "Issue", issue: payload.issue, ...host }
}

export const Spawned = Schema.Struct({
  record: SessionRecord,
  warnings: Schema.Array(Schema.String),
  recovered: Schema.optionalKey(Schema.Array(Schema.String))
})

export const BatchOutcome = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Created"), issueId: Schema.String, record: SessionRecord, warnings: Schema.Array(Schema.String) }),
  Schema.Struct({ _tag: Schema.Literal("Skipped"), issueId: Schema.String, sessionId: Schema.String }),
  Schema.Struct({ _tag: Schema.Literal("Failed"), issueId: Schema.String, reason: Schema.String }),
  Schema.Struct({ _tag: Schema.Literal("Queued"), issueId: Schema.String, entryId: Schema.String, position: Schema.Int, reason: Schema.String })
])

export const Positioned = Schema.Struct({ ...QueueEntry.fields, position: Schema.Int })
export const QueueAdded = Schema.Struct({ added: Schema.Array(Positioned), already: Schema.Array(Positioned) })
export const QueuedItem = Schema.Struct({ ...Positioned.fields, reason: Schema.String })

export const Killed = Schema.Struct({
  record: SessionRecord,
  rescuedTo: Schema.optionalKey(Schema.String),
  commit: Schema.optionalKey(Schema.String),
  alreadyKilled: Schema.optionalKey(Schema.Boolean),
  /** The session was a start cut short: it was undone (what undoing it did, for people), not killed. */
  undone: Schema.optionalKey(Schema.String)
})

/** What `orch stop --kill-sessions` did to each session: killed (and where its unsaved work went), or not. */
export const StopReport = Schema.Struct({
  killed: Schema.Array(Schema.Struct({ sessionId: Schema.String, rescuedTo: Schema.optionalKey(Schema.String), commit: Schema.optionalKey(Schema.String) })),
  failed: Schema.Array(Schema.Struct({ sessionId: Schema.String, reason: Schema.String }))
})

export const CleanupItem = Schema.Struct({
  record: SessionRecord,
  status: CleanedStatus,
  cause: CleanupCause,
  reason: Schema.String,
  rescuedTo: Schema.optionalKey(Schema.String),
  commit: Schema.optionalKey(Schema.String)
})

export const Removed = Schema.Struct({
  sessionId: Schema.String,
  projectId: Schema.String,
  status: SessionStatus,
  worktreeRemoved: Schema.Boolean,
  rescueRef: Schema.optionalKey(Schema.String)
})

export const PruneReport = Schema.Struct({
  removed: Schema.Array(Removed),
  kept: Schema.Array(Schema.Struct({ sessionId: Schema.String, reason: Schema.String }))
})

export const Started = Schema.Struct({
  project: Schema.String,
  orchestratorSessionId: Schema.String,
  reused: Schema.Boolean,
  dashboardUrl: Schema.String
})

export class SupervisorRpcs extends RpcGroup.make(
  Rpc.make("Ping", { success: SupervisorInfo }),
  Rpc.make("Spawn", { payload: SpawnPayload, success: Spawned, error: RemoteError }),
  Rpc.make("BatchSpawn", {
    payload: { project: Schema.String, issues: Schema.Array(Schema.String) },
    success: Schema.Array(BatchOutcome),
    error: RemoteError
  }),
  Rpc.make("Send", { payload: { sessionId: Schema.String, message: Schema.String }, error: RemoteError }),
  Rpc.make("Kill", { payload: { sessionId: Schema.String }, success: Killed, error: RemoteError }),
  Rpc.make("Restore", { payload: { sessionId: Schema.String }, success: SessionRecord, error: RemoteError }),
  Rpc.make("Cleanup", { payload: { dryRun: Schema.Boolean }, success: Schema.Array(CleanupItem), error: RemoteError }),
  Rpc.make("Remove", { payload: { sessionId: Schema.String }, success: Removed, error: RemoteError }),
  Rpc.make("Prune", { payload: { dryRun: Schema.Boolean }, success: PruneReport, error: RemoteError }),
  /** No project: the only one of the config the supervisor serves. */
  Rpc.make("Start", { payload: { project: Schema.optionalKey(Schema.String) }, success: Started, error: RemoteError }),
  Rpc.make("Stop", { payload: { killSessions: Schema.Boolean }, success: StopReport, error: RemoteError }),
  Rpc.make("QueueAdd", {
    payload: { project: Schema.String, issues: Schema.Array(Schema.String), priority: Schema.Int },
    success: QueueAdded,
    error: RemoteError
  }),
  Rpc.make("QueueTask", {
    payload: { project: Schema.String, task: Schema.String, priority: Schema.Int },
    success: QueueAdded,
    error: RemoteError
  }),
  Rpc.make("QueueList", { success: Schema.Array(QueuedItem), error: RemoteError }),
  Rpc.make("QueueRemove", { payload: { ref: Schema.String }, success: Schema.Array(QueueEntry), error: RemoteError })
) {}
