/**
 * The session procedures as the CLI uses them: run in-process (SessionManager) when no supervisor runs, or by
 * the supervisor over its socket (src/ipc/client.ts) when one does — one writer of session truth.
 */
import type * as Effect from "effect/Effect"
import type { Positioned, QueueEntry } from "../domain/queue.ts"
import type { SessionRecord, SessionStatus } from "../domain/session.ts"
import type { CleanupVerdict } from "./cleanup-decision.ts"

/** What a session is spawned for: a tracker's issue (`42`, `#42`, `ENG-123`), or a task a person wrote. */
export type SpawnTarget =
  | { readonly _tag: "Issue"; readonly issue: string; readonly host?: string }
  | { readonly _tag: "Task"; readonly task: string; readonly host?: string }

export type BatchOutcome =
  | { readonly _tag: "Created"; readonly issueId: string; readonly record: SessionRecord; readonly warnings: ReadonlyArray<string> }
  | { readonly _tag: "Skipped"; readonly issueId: string; readonly sessionId: string }
  | { readonly _tag: "Failed"; readonly issueId: string; readonly reason: string }
  /** Not started now: queued, at `position`, waiting on the budget `reason` names. */
  | { readonly _tag: "Queued"; readonly issueId: string; readonly entryId: string; readonly position: number; readonly reason: string }

/** A session cleanup ends (or, with --dry-run, would end): the status it gets and why (see cleanup-decision.ts). */
export interface CleanupItem {
  /** The record as cleanup left it (as it was, for a dry run). */
  readonly record: SessionRecord
  readonly status: CleanupVerdict["status"]
  readonly cause: CleanupVerdict["cause"]
  readonly reason: string
  readonly rescuedTo?: string
  readonly commit?: string
}

export interface Killed {
  readonly record: SessionRecord
  readonly rescuedTo?: string
  readonly commit?: string
  /** It had been killed before: nothing was done. */
  readonly alreadyKilled?: boolean
  /** It was a start cut short: it was undone instead (what undoing it did, for people). */
  readonly undone?: string
}

/** A session record removed (or, in a dry run, that would be) by `orch session rm` or `prune`. */
export interface Removed {
  readonly sessionId: string
  readonly projectId: string
  readonly status: SessionStatus
  /** Its worktree was still there (with nothing unsaved) and went with it. */
  readonly worktreeRemoved: boolean
  /** Work saved when the session ended: kept, as every git ref is. */
  readonly rescueRef?: string
}

export interface PruneReport {
  readonly removed: ReadonlyArray<Removed>
  /** Ended sessions that were not removed, and why. */
  readonly kept: ReadonlyArray<{ readonly sessionId: string; readonly reason: string }>
}

/** Failures carry a message for people and, where it is not 1, an exit code. */
export type OpError = { readonly message: string }

/** A session a spawn made, what it warns of, and what the command finished or undid first that crashes had left. */
export interface Spawned {
  readonly record: SessionRecord
  readonly warnings: ReadonlyArray<string>
  /** Reconcile's lines ("undid app-3, a spawn of issue 9 interrupted when…"): a command that cleans up says so. */
  readonly recovered?: ReadonlyArray<string>
}
export interface SessionOps {
  readonly spawn: (project: string, target: SpawnTarget) => Effect.Effect<Spawned, OpError>
  readonly batchSpawn: (
    project: string,
    issues: ReadonlyArray<string>,
    onOutcome: (outcome: BatchOutcome) => Effect.Effect<void>
  ) => Effect.Effect<ReadonlyArray<BatchOutcome>, OpError>
  readonly send: (sessionId: string, message: string) => Effect.Effect<void, OpError>
  readonly kill: (sessionId: string) => Effect.Effect<Killed, OpError>
  readonly restore: (sessionId: string) => Effect.Effect<SessionRecord, OpError>
  readonly cleanup: (options: { readonly dryRun: boolean }) => Effect.Effect<ReadonlyArray<CleanupItem>, OpError>
  /** Removes an ended session's record and files; refuses a live one or one with unsaved work. */
  readonly remove: (sessionId: string) => Effect.Effect<Removed, OpError>
  readonly prune: (options: { readonly dryRun: boolean }) => Effect.Effect<PruneReport, OpError>
  /** Queues issues of a project (those queued already stay where they are). */
  readonly queueAdd: (project: string, issues: ReadonlyArray<string>, priority: number) => Effect.Effect<QueueAdded, OpError>
  /** Queues a task in a person's words for a project (the agent's prompt once admitted). */
  readonly queueTask: (project: string, task: string, priority: number) => Effect.Effect<QueueAdded, OpError>
  /** The queue in order, each entry with the budget it waits on. */
  readonly queueList: () => Effect.Effect<ReadonlyArray<QueuedItem>, OpError>
  /** Removes the entries `ref` names (an entry id, or an issue). */
  readonly queueRemove: (ref: string) => Effect.Effect<ReadonlyArray<QueueEntry>, OpError>
}

export interface QueueAdded {
  readonly added: ReadonlyArray<Positioned>
  readonly already: ReadonlyArray<Positioned>
}

export type QueuedItem = Positioned & { readonly reason: string }
