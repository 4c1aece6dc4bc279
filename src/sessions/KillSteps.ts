/**
 * A kill's steps after its journal (`killing`) is written, which a crash can come between: the agent stopped, the
 * worktree saved and removed, the record killed (naming where `session.killed` belongs in the log), the event, and
 * the journal gone. `orch session kill` takes them, and reconcile takes them again for a kill cut short.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { hostOf, type SessionRecord } from "../domain/session.ts"
import type { ControlDirUnusable } from "../hosts/errors.ts"
import type { PluginBuildError } from "../plugins/registry.ts"
import type { RuntimeError } from "../plugins/runtime/Runtime.ts"
import type { StoreError } from "../store/errors.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { KillIncomplete } from "./errors.ts"
import { nowIso, updateRecord } from "./record-update.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { type RemovedWorkspace, removeWorkspaceSafely, stopRuntime } from "./teardown.ts"

export interface KillStepsShape {
  /** Stops the session's agent, saves and removes its worktree, and records and announces it killed. */
  readonly finish: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    record: SessionRecord
  ) => Effect.Effect<
    { readonly killed: SessionRecord; readonly removed: RemovedWorkspace },
    RuntimeError | KillIncomplete | StoreError | PluginBuildError | ControlDirUnusable
  >
  /** Writes `session.killed` (unless the log has it since the record said killed) and ends the kill's journal. */
  readonly announce: (killed: SessionRecord) => Effect.Effect<SessionRecord, StoreError>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const plugins = yield* SessionPlugins

  const announce = Effect.fnUntraced(function*(killed: SessionRecord) {
    const from = killed.killing?.announce ?? 0
    const written = killed.killing?.announce !== undefined &&
      (yield* events.linesFrom(from)).some((line) => line.includes(`"type":"session.killed"`) && line.includes(`"sessionId":"${killed.sessionId}"`))
    if (!written) {
      yield* events.append({
        type: "session.killed",
        sessionId: killed.sessionId,
        projectId: killed.projectId,
        ...(killed.rescueRef ? { data: { rescueRef: killed.rescueRef } } : {})
      })
    }
    const { killing: _, ...done } = killed
    yield* store.write(done, { durable: false })
    return done
  })

  const finish = Effect.fnUntraced(function*(config: OrchestratorConfig, project: ProjectConfig, record: SessionRecord) {
    const { sessionId } = record
    const removed = yield* Effect.gen(function*() {
      yield* stopRuntime(record.runtime)
      // The agent is stopped: a worktree that cannot be saved is kept, and the record says the agent is gone.
      return yield* removeWorkspaceSafely(project, record, record.workspacePath, record.branch).pipe(
        Effect.catch((error) => {
          const { killing: _, ...stopped } = record
          return Effect.andThen(updateRecord(store, stopped, { activity: "exited" }), Effect.fail(new KillIncomplete({ sessionId, reason: error.message })))
        })
      )
    }).pipe(plugins.provide(config, project, hostOf(record)))
    const killed = yield* updateRecord(store, record, {
      status: "killed",
      activity: "exited",
      endedAt: yield* nowIso,
      ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {}),
      ...(record.killing !== undefined ? { killing: { ...record.killing, announce: yield* events.size } } : {})
    })
    yield* announce(killed)
    return { killed, removed }
  })

  return KillSteps.of({ finish, announce })
})

export class KillSteps extends Context.Service<KillSteps, KillStepsShape>()("orch/sessions/KillSteps") {
  /** Needs the store, the event log and SessionPlugins. */
  static readonly layer = Layer.effect(KillSteps, make)
}
