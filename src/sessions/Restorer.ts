/**
 * `orch session restore`: a session whose agent is gone runs again, in its worktree (made again if it went), with
 * its agent resumed (its conversation kept), once reconcile has finished or undone what was cut short.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { statSync } from "node:fs"
import { ConfigSource } from "../config/ConfigSource.ts"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { hostOf, type RuntimeHandle, type SessionRecord } from "../domain/session.ts"
import { Agent } from "../plugins/agent/Agent.ts"
import { Runtime, type RuntimeShape } from "../plugins/runtime/Runtime.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { agentEnvironment } from "./agent-env.ts"
import { makeAgentFiles, pathsOn } from "./agent-files.ts"
import { agentContext, checkAgentProgram, waitUntilReady, watchStart } from "./agent-start.ts"
import { RestoreFailed, SessionRunning } from "./errors.ts"
import { liveness } from "./liveness.ts"
import type { RestoreError } from "./procedure-errors.ts"
import { projectOf } from "./project-lookup.ts"
import { Reconciler } from "./Reconciler.ts"
import { nowIso, updateRecord } from "./record-update.ts"
import { SessionPlugins } from "./SessionPlugins.ts"

export interface RestorerShape {
  /** Starts the session's agent again (resumed); refuses one that runs. */
  readonly restore: (sessionId: string) => Effect.Effect<SessionRecord, RestoreError>
}

/**
 * Returns once the agent takes input, so a message sent right after restore is not typed into a starting TUI. One
 * that asks a question or is slow is left to the supervisor's probes; one that exits fails the restore, its terminal ended.
 */
const lookAtStart = (runtime: RuntimeShape, agent: Agent["Service"], record: SessionRecord, handle: RuntimeHandle) =>
  watchStart(runtime, handle).pipe(
    Effect.andThen(
      waitUntilReady(runtime, agent, handle).pipe(
        Effect.catch((reason) =>
          Effect.flatMap(liveness({ ...record, runtime: handle }), (state) => (state._tag === "Alive" ? Effect.void : Effect.fail(reason)))
        )
      )
    ),
    Effect.catch((reason) =>
      Effect.flatMap(
        runtime.destroy(handle).pipe(
          Effect.as(""),
          Effect.catch((error) => Effect.succeed(`; and its terminal session ${handle.id} could not be ended: ${error.message}`))
        ),
        (left) => Effect.fail(new RestoreFailed({ sessionId: record.sessionId, reason: `${typeof reason === "string" ? reason : reason.message}${left}` }))
      )
    )
  )

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const reconciler = yield* Reconciler

  /** The agent started again, with the project's plugins in context: its terminal, and where its new signals start. */
  const relaunch = Effect.fnUntraced(function*(config: OrchestratorConfig, project: ProjectConfig, record: SessionRecord) {
    const { sessionId } = record
    const runtime = yield* Runtime
    const agent = yield* Agent
    const workspace = yield* Workspace
    if ((yield* plugins.livenessFor(config, record, "session restore"))._tag === "Alive") return yield* new SessionRunning({ sessionId })
    // Before anything is made again: a restore that cannot start the agent leaves the session as it was.
    yield* checkAgentProgram(agent, project).pipe(Effect.mapError((reason) => new RestoreFailed({ sessionId, reason })))
    if (record.runtime !== null) yield* runtime.destroy(record.runtime)
    if (!(yield* workspace.exists(record.workspacePath))) {
      yield* workspace.create({ project, sessionId, branch: record.branch, path: record.workspacePath })
    }
    const there = yield* pathsOn(store.paths, workspace)
    const context = agentContext({ paths: there }, project, record, "")
    const launch = yield* agent.resume(context)
    yield* makeAgentFiles(workspace, store.paths, there, record, launch.files ?? [])
    // What the agent reported before is history (a `done` folded again would end the restored session): its
    // signals are read from where the file ends now, before the agent can add any. The supervisor reads the
    // local file (a host's lines are mirrored into it).
    const signalOffset = yield* Effect.sync(() => statSync(store.paths.activity(project.id, sessionId), { throwIfNoEntry: false })?.size ?? 0)
    const handle = yield* runtime.create({
      sessionId,
      workingDir: record.workspacePath,
      command: launch.command,
      ...agentEnvironment(project, context, launch.env, hostOf(record) === LOCAL ? process.env : {})
    })
    yield* lookAtStart(runtime, agent, record, handle)
    return { handle, signalOffset }
  })

  const restore = Effect.fn("Sessions.restore")(function*(sessionId: string) {
    const config = yield* configs.current
    const project = yield* projectOf(config, yield* store.read(sessionId))
    yield* reconciler.reconcile()
    // As reconcile left it: a start cut short is gone (undone), a kill cut short is finished.
    const record = yield* store.read(sessionId)
    const { handle, signalOffset } = yield* relaunch(config, project, record).pipe(plugins.provide(config, project, hostOf(record)))
    // Running again: it has not ended (a later cleanup must see it), and its agent has said nothing yet.
    const { endedAt: _, said: _said, killing: _killing, ...running } = record
    const restored = yield* updateRecord(store, running, { status: "working", activity: "active", activitySince: yield* nowIso, runtime: handle, signalOffset })
    yield* events.append({ type: "session.restored", sessionId, projectId: record.projectId, issueId: record.issueId })
    return restored
  })

  return Restorer.of({ restore })
})

export class Restorer extends Context.Service<Restorer, RestorerShape>()("orch/sessions/Restorer") {
  /** Needs the config in force, the store, the event log, SessionPlugins and the Reconciler. */
  static readonly layer = Layer.effect(Restorer, make)
}
