/**
 * Undoing a spawn whose process died half-way (lists show it `interrupted`): from its journal, the terminal it
 * started ends, the worktree it made goes (anything written in it saved to `refs/orch/rescue/<id>` first), the branch
 * it made goes unless it holds commits, its session directory is released, and `session.reconciled` says what was done.
 */
import * as Effect from "effect/Effect"
import { tmpdir } from "node:os"
import type { ProjectConfig } from "../config/schema.ts"
import { isInterrupted } from "../domain/live.ts"
import { hostOf, type RuntimeHandle, type SessionRecord, type SpawnJournal } from "../domain/session.ts"
import { removeLeftEnvFiles } from "../plugins/runtime/launch-env.ts"
import { Runtime } from "../plugins/runtime/Runtime.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { endProcessesIn } from "../process/in-directory.ts"
import { errnoReason, StoreError } from "../store/errors.ts"
import { EventLog } from "../store/EventLog.ts"
import { withLock } from "../store/lock.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { spawnerLives } from "../store/spawner.ts"
import { removeWorkspaceSafely, stopRuntime } from "./teardown.ts"

/** Ends a journaled terminal if it exists; whether there was one to end (one that cannot be probed is ended anyway). */
const endTerminal = (handle: RuntimeHandle) =>
  Runtime.use((runtime) => runtime.probe([handle])).pipe(
    Effect.map((found) => found.get(handle.id)?._tag !== "Gone"),
    Effect.orElseSucceed(() => true),
    Effect.tap((exists) => (exists ? stopRuntime(handle) : Effect.void))
  )

/** What undoing one interrupted spawn did. */
export interface UndoneSpawn {
  readonly sessionId: string
  readonly projectId: string
  /** What it was for: `issue 9`, `task fix-the-login`. */
  readonly work: string
  /** The spawning process that was gone. */
  readonly pid: number
  readonly branch: string
  readonly terminalEnded: boolean
  readonly worktreeRemoved: boolean
  /** The branch the spawn made is deleted (it held no commits); false when the spawn did not make it, or it holds work. */
  readonly branchDeleted: boolean
  /** Where what the agent had written went. */
  readonly rescuedTo?: string
}

/** "undid app-1, a spawn of issue 9 interrupted when its process (1234) died: …", for people. */
export const undoneLine = (undone: UndoneSpawn): string => {
  const did = [
    ...(undone.terminalEnded ? ["ended its terminal"] : []),
    ...(undone.worktreeRemoved ? ["removed its worktree"] : []),
    ...(undone.branchDeleted ? [`deleted its branch ${undone.branch}`] : [])
  ]
  const what = did.length > 0 ? `: ${did.join(", ")}` : ""
  const rescued = undone.rescuedTo !== undefined ? `; what was written in its worktree is saved in ${undone.rescuedTo}` : ""
  return `undid ${undone.sessionId}, a spawn of ${undone.work} interrupted when its process (${undone.pid}) died${what}${rescued}`
}

/**
 * Undoes one interrupted spawn, with its project's plugins in context (and the host's, for a session on another
 * host). An id whose work was rescued is retired, not released: its rescue ref stays that spawn's alone.
 */
export const undoSpawn = Effect.fn("Sessions.undoSpawn")(function*(project: ProjectConfig, listed: SessionRecord) {
  const store = yield* SessionStore
  // Two commands may find the same interrupted spawn at once (`orch status` in two terminals): one undoes it, under
  // a lock of its own; the other then finds it gone, or finds nothing to undo.
  return yield* withLock(store.paths.locks, `undo-${listed.sessionId}`, "30 seconds")(Effect.gen(function*() {
    const record = yield* store.read(listed.sessionId).pipe(Effect.catchTag("SessionNotFound", () => Effect.succeed(undefined)))
    if (record === undefined || record.spawn === undefined || !isInterrupted(record, spawnerLives(record))) return undefined
    return yield* undo(project, record, record.spawn)
  })).pipe(Effect.catchTag("LockTimeout", (error) => Effect.fail(new StoreError({ path: store.paths.locks, reason: error.message }))))
})

const undo = Effect.fnUntraced(function*(project: ProjectConfig, record: SessionRecord, journal: SpawnJournal) {
  const store = yield* SessionStore
  const events = yield* EventLog
  const workspace = yield* Workspace
  // A terminal is journaled before it is made: one the spawn died before making has nothing to end.
  const terminalEnded = journal.runtime !== undefined && (yield* endTerminal(journal.runtime))
  // Its agent's environment file (it may hold secrets), if the spawn died before the agent's shell read it.
  yield* Effect.try({
    try: () => removeLeftEnvFiles(record.sessionId, record.workspacePath),
    catch: (cause) => new StoreError({ path: tmpdir(), reason: errnoReason(cause) })
  })
  // What the spawn left running in its worktree here (its postCreate, when the spawn was killed during it) ends first.
  if (journal.workspace !== undefined && hostOf(record) === "local") yield* Effect.sync(() => endProcessesIn(journal.workspace!))
  const worktreeExisted = journal.workspace !== undefined && (yield* workspace.exists(journal.workspace))
  const removed = journal.workspace === undefined
    ? {}
    : yield* removeWorkspaceSafely(project, record, journal.workspace, record.branch, { deleteBranch: journal.createdBranch === true })
  const undone: UndoneSpawn = {
    sessionId: record.sessionId,
    projectId: record.projectId,
    work: record.task === undefined ? `issue ${record.issueId}` : `task ${record.issueId}`,
    pid: journal.pid,
    branch: record.branch,
    terminalEnded,
    worktreeRemoved: worktreeExisted,
    branchDeleted: removed.branchDeleted === true,
    ...(removed.rescuedTo !== undefined ? { rescuedTo: removed.rescuedTo } : {})
  }
  yield* removed.rescuedTo === undefined ? store.release(record.projectId, record.sessionId) : store.remove(record.projectId, record.sessionId)
  yield* events.append({
    type: "session.reconciled",
    sessionId: record.sessionId,
    projectId: record.projectId,
    issueId: record.issueId,
    message: undoneLine(undone),
    data: {
      pid: journal.pid,
      branch: record.branch,
      terminalEnded: undone.terminalEnded,
      worktreeRemoved: undone.worktreeRemoved,
      branchDeleted: undone.branchDeleted,
      ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {})
    }
  })
  return undone
})
