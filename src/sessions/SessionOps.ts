/**
 * The session procedures as the CLI uses them: run in-process (SessionManager) when no supervisor runs, or by
 * the supervisor over its socket (src/ipc/client.ts) when one does — one writer of session truth.
 */
import type * as Effect from "effect/Effect"
import type { SessionRecord } from "../domain/session.ts"
import type { CleanupVerdict } from "./cleanup-decision.ts"

export type BatchOutcome =
  | { readonly _tag: "Created"; readonly issueId: string; readonly record: SessionRecord; readonly warnings: ReadonlyArray<string> }
  | { readonly _tag: "Skipped"; readonly issueId: string; readonly sessionId: string }
  | { readonly _tag: "Failed"; readonly issueId: string; readonly reason: string }

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
}

/** Failures carry a message for people and, where it is not 1, an exit code. */
export type OpError = { readonly message: string }

export interface SessionOps {
  readonly spawn: (project: string, issue: string) => Effect.Effect<{ readonly record: SessionRecord; readonly warnings: ReadonlyArray<string> }, OpError>
  readonly batchSpawn: (
    project: string,
    issues: ReadonlyArray<string>,
    onOutcome: (outcome: BatchOutcome) => Effect.Effect<void>
  ) => Effect.Effect<ReadonlyArray<BatchOutcome>, OpError>
  readonly send: (sessionId: string, message: string) => Effect.Effect<void, OpError>
  readonly kill: (sessionId: string) => Effect.Effect<Killed, OpError>
  readonly restore: (sessionId: string) => Effect.Effect<SessionRecord, OpError>
  readonly cleanup: (options: { readonly dryRun: boolean }) => Effect.Effect<ReadonlyArray<CleanupItem>, OpError>
}
