/**
 * Recovery of admissions a crash cut short (docs/queue.md, "Crashes"): each entry still marked as being started by a
 * process that is gone is finished when its session exists whole (`queue.admitted`), or undone when it does not (the
 * half-made spawn undone, the reserved id released, the entry back where it was). Each is told by `queue.recovered`,
 * written in the same step as the queue change. First, the events a queue change was killed before appending are
 * written (its outbox). The supervisor runs it before anything else; so does every command that changes sessions.
 */
import * as Effect from "effect/Effect"
import { entryLabel, type QueueEntry } from "../domain/queue.ts"
import type { SessionRecord } from "../domain/session.ts"
import type { ControlDirUnusable } from "../hosts/errors.ts"
import type { PluginBuildError } from "../plugins/registry.ts"
import type { RuntimeError } from "../plugins/runtime/Runtime.ts"
import type { WorkspaceError } from "../plugins/workspace/Workspace.ts"
import type { StoreError } from "../store/errors.ts"
import type { QueueStoreShape } from "../store/QueueStore.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"

/** What recovery did with an entry. */
export interface Recovered {
  readonly entryId: string
  readonly sessionId: string
  readonly outcome: "admitted" | "returned"
}

/** What recovery does with an orphaned entry, given what became of its session: pure. */
export const recoveryOf = (record: SessionRecord | undefined): "admitted" | "returned" =>
  record !== undefined && record.status !== "spawning" ? "admitted" : "returned"

/** What undoing an interrupted spawn can fail with (undo-spawn.ts, with its project's plugins). */
export type UndoSpawnError = StoreError | RuntimeError | WorkspaceError | PluginBuildError | ControlDirUnusable

export interface RecoveryDeps {
  readonly queue: QueueStoreShape
  readonly store: SessionStoreShape
  /** Whether an entry's admission was left half-done by a process that is gone. */
  readonly orphaned: (entry: QueueEntry) => boolean
  /** Undoes a spawn whose process died half-way (its terminal, worktree and branch; unsaved work rescued first). */
  readonly undoSpawn: (record: SessionRecord) => Effect.Effect<void, UndoSpawnError>
}

export const recoverQueue = Effect.fn("Queue.recover")(function*(deps: RecoveryDeps) {
  // Events a queue change killed before it appended them (a queue.admitted, a queue.added) are written first.
  yield* deps.queue.flushOutbox
  const orphans = (yield* deps.queue.list).filter((entry) => entry.admitting !== undefined && deps.orphaned(entry))
  if (orphans.length === 0) return []
  const { records } = yield* deps.store.list
  const recovered: Array<Recovered> = []
  for (const entry of orphans) {
    const { sessionId } = entry.admitting!
    const record = records.find((r) => r.projectId === entry.projectId && r.sessionId === sessionId)
    const outcome = recoveryOf(record)
    const label = `${entry.id} (${entryLabel(entry)})`
    if (outcome === "returned") {
      if (record !== undefined) yield* deps.undoSpawn(record)
      else yield* deps.store.release(entry.projectId, sessionId)
    }
    const told = {
      type: "queue.recovered",
      sessionId,
      projectId: entry.projectId,
      ...(entry.issue !== undefined ? { issueId: entry.issue } : {}),
      message: outcome === "admitted"
        ? `${label}: its admission was cut short after ${sessionId} was made; it is admitted`
        : `${label}: its admission was cut short before ${sessionId} was whole; that spawn is undone and the entry waits again where it was`,
      data: { entryId: entry.id, outcome }
    } as const
    const settled = yield* deps.queue.settle(
      entry.id,
      sessionId,
      outcome === "admitted" ? { _tag: "Admitted", message: `${label} started as ${sessionId}`, data: { recovered: true } } : { _tag: "Returned" },
      [told]
    )
    if (settled) recovered.push({ entryId: entry.id, sessionId, outcome })
  }
  return recovered
})
