/**
 * A session being made by a spawn: its reserved id, where its files go, and its record as the spawn last wrote it.
 * Every step writes what it is about to make into the record's spawn journal first (`journal`), so a spawn killed
 * half-way can be undone from it (undo-spawn.ts); a spawn that fails undoes what it made at once (`undoWorkspace`,
 * `undoTerminal`).
 */
import * as Effect from "effect/Effect"
import type { RuntimeHandle, SessionRecord } from "../domain/session.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { EventLog } from "../store/EventLog.ts"
import type { StorePaths } from "../store/paths.ts"
import { spawnFailed, type SpawnRun, undoing } from "./spawn-run.ts"
import { removeWorkspaceSafely } from "./teardown.ts"

export interface SessionDraft {
  readonly run: SpawnRun
  readonly sessionId: string
  /** The session's files where it runs: on a host, under its data dir there. */
  readonly there: StorePaths
  record: SessionRecord
}

/** A workspace the spawn made (or was about to make), and whether it made its branch. */
export interface MadeWorkspace {
  readonly path: string
  readonly branch: string
  readonly createdBranch: boolean
}

/** Writes `next` as the session's record (durably unless told not to; the spawn waits, so in the thread pool). */
export const save = (draft: SessionDraft, next: SessionRecord, options?: { readonly durable?: boolean }) =>
  Effect.suspend(() => {
    draft.record = next
    return draft.run.store.write(next, { offThread: true, ...options })
  }).pipe(Effect.mapError(spawnFailed(draft.run, "writing the session record")))

/** Adds `entry` to the record's spawn journal, before the step it names makes anything. */
export const journal = (draft: SessionDraft, entry: Partial<NonNullable<SessionRecord["spawn"]>>) =>
  Effect.suspend(() => save(draft, { ...draft.record, spawn: { ...draft.record.spawn!, ...entry } }))

/** Removes a workspace the spawn made; anything the agent already wrote there (a spawn cancelled once it ran) is saved to the rescue ref first. */
export const undoWorkspace = (draft: SessionDraft, made: MadeWorkspace) =>
  undoing(
    draft.run,
    `remove the worktree ${made.path}${made.createdBranch ? ` and its branch ${made.branch}` : ""}`,
    removeWorkspaceSafely(draft.run.project, draft.record, made.path, made.branch, { deleteBranch: made.createdBranch }).pipe(
      Effect.map((removed) => void (draft.run.rescued ||= removed.rescuedTo !== undefined)),
      Effect.provideService(Workspace, draft.run.workspace),
      Effect.provideService(EventLog, draft.run.events)
    )
  )

/** Ends a terminal session the spawn started. */
export const undoTerminal = (run: SpawnRun, handle: RuntimeHandle) => undoing(run, `end the terminal session ${handle.id}`, run.runtime.destroy(handle))
