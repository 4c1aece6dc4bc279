/**
 * The running supervisor (`orch start`), composed: orch as `orch/effect` composes it (composition.ts: store and
 * event log, notifiers and their router, the config in force with the SessionManager, the Supervisor with its actors
 * and probe cycle, the reload that follows the config file), the dashboard, the IPC server on `orch.sock`, and
 * `supervisor.json` announcing it — removed again when it stops. It runs until `shutdown` completes.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Host } from "../src/config/host.ts"
import type { OrchestratorConfig, ProjectConfig } from "../src/config/schema.ts"
import { dashboardLayer } from "../src/dashboard/server.ts"
import { isLive } from "../src/domain/session.ts"
import { spawnTarget, SupervisorRpcs } from "../src/ipc/protocol.ts"
import { ipcServerLayer, remote } from "../src/ipc/server.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import { readConfigState } from "../src/store/config-state.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { makeInbox } from "../src/store/Inbox.ts"
import { processStartTime } from "../src/store/process-liveness.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { removeSupervisorFile, socketPath, writeSupervisorFile } from "../src/store/supervisor-file.ts"
import { orchLayer } from "./composition.ts"
import { rejectedNote } from "./config-status.ts"
import { Supervisor } from "./supervisor.ts"
import { terminalOf } from "./terminals.ts"

/** How `orch stop` stopped the supervisor: with its sessions killed first (how many were, and were not), or not. */
export interface Shutdown {
  readonly killedSessions: boolean
  readonly killed: number
  readonly notKilled: number
}

export interface AppOptions {
  /** The data directory. */
  readonly root: string
  /** The orch entry point, for the orchestrator agent's `orch`. */
  readonly cliPath: string
  readonly version: string
  /** Completing it stops the supervisor (the `Stop` RPC does), saying whether its sessions were killed first. */
  readonly shutdown: Deferred.Deferred<Shutdown>
  /** The dashboard's token, and its URL with the token. */
  readonly token: string
  readonly dashboardUrl: string
}

const handlers = (options: AppOptions, configPath: string | undefined) =>
  SupervisorRpcs.toLayer(Effect.gen(function*() {
    const supervisor = yield* Supervisor
    const manager = yield* SessionManager
    const store = yield* SessionStore
    const startedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const { homeDir } = yield* Host
    /** A spawn runs on the last good config when the file has an error: the answer says so (the fast path prints it too). */
    const withConfigNote = <A extends { readonly warnings: ReadonlyArray<string> }>(spawned: A) =>
      Effect.sync(() => {
        const state = readConfigState(store.paths.root)
        const note = state?.pid === process.pid ? rejectedNote(state, homeDir) : undefined
        return note === undefined ? spawned : { ...spawned, warnings: [...spawned.warnings, note] }
      })
    const killAll = Effect.flatMap(store.list, ({ records }) =>
      Effect.forEach(records.filter(isLive), (r) =>
        supervisor.ops.kill(r.sessionId).pipe(
          Effect.map(({ rescuedTo, commit }) => ({
            _tag: "Killed" as const,
            sessionId: r.sessionId,
            ...(rescuedTo ? { rescuedTo } : {}),
            ...(commit ? { commit } : {})
          })),
          Effect.catch((error) => Effect.succeed({ _tag: "Failed" as const, sessionId: r.sessionId, reason: error.message }))
        ))).pipe(
        Effect.map((outcomes) => ({
          killed: outcomes.flatMap(({ _tag, ...killed }) => (_tag === "Killed" ? [killed] : [])),
          failed: outcomes.flatMap((outcome) => (outcome._tag === "Failed" ? [{ sessionId: outcome.sessionId, reason: outcome.reason }] : []))
        }))
      )
    return {
      Ping: () =>
        Effect.map(Effect.all([supervisor.actorCount, supervisor.projects]), ([sessions, projects]) => ({
          pid: process.pid,
          version: options.version,
          startedAt,
          projects: projects.map((p) => p.id),
          sessions,
          dashboardUrl: options.dashboardUrl,
          ...(configPath !== undefined ? { configPath } : {})
        })),
      Spawn: (payload) => remote(Effect.flatMap(supervisor.ops.spawn(payload.project, spawnTarget(payload)), withConfigNote)),
      BatchSpawn: ({ project, issues }) => remote(supervisor.ops.batchSpawn(project, issues, () => Effect.void)),
      Send: ({ sessionId, message }) => remote(supervisor.ops.send(sessionId, message)),
      Kill: ({ sessionId }) => remote(supervisor.ops.kill(sessionId)),
      Restore: ({ sessionId }) => remote(supervisor.ops.restore(sessionId)),
      Cleanup: ({ dryRun }) => remote(supervisor.ops.cleanup({ dryRun })),
      Remove: ({ sessionId }) => remote(supervisor.ops.remove(sessionId)),
      Prune: ({ dryRun }) => remote(supervisor.ops.prune({ dryRun })),
      QueueAdd: ({ issues, priority, project }) => remote(supervisor.ops.queueAdd(project, issues, priority)),
      QueueTask: ({ priority, project, task }) => remote(supervisor.ops.queueTask(project, task, priority)),
      QueueList: () => remote(supervisor.ops.queueList()),
      QueueRemove: ({ ref }) => remote(supervisor.ops.queueRemove(ref)),
      Start: ({ project }) =>
        remote(manager.orchestrate(project, options.cliPath)).pipe(
          Effect.tap(() => supervisor.cycleNow),
          Effect.map(({ record, reused }) => ({
            project: project ?? record.projectId,
            orchestratorSessionId: record.sessionId,
            reused,
            dashboardUrl: options.dashboardUrl
          }))
        ),
      // Admission stops first: no session a kill frees is filled again, and a start under way is undone and its
      // entry put back before anything is killed.
      // Carried out whole even if the asking `orch stop` goes away: a stop half-done would leave admission halted.
      Stop: ({ killSessions }) =>
        Effect.gen(function*() {
          yield* supervisor.haltAdmission
          const report = killSessions ? yield* killAll : { killed: [], failed: [] }
          // Answer first, then stop.
          const stopped: Shutdown = { killedSessions: killSessions, killed: report.killed.length, notKilled: report.failed.length }
          yield* Effect.forkDetach(Effect.andThen(Effect.sleep("50 millis"), Deferred.succeed(options.shutdown, stopped)))
          return report
        }).pipe(Effect.uninterruptible)
    }
  }))

/** Announces the supervisor in `supervisor.json` (and the event log) for as long as it runs. */
const announce = (options: AppOptions, configPath: string | undefined) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const events = yield* EventLog
    const startedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const pidStart = processStartTime(process.pid)
    yield* Effect.acquireRelease(
      Effect.andThen(
        writeSupervisorFile(options.root, {
          pid: process.pid,
          ...(pidStart !== undefined ? { pidStart } : {}),
          socket: socketPath(options.root),
          startedAt,
          version: options.version,
          dashboardUrl: options.dashboardUrl,
          ...(configPath !== undefined ? { configPath } : {})
        }),
        events.append({ type: "supervisor.started", message: `pid ${process.pid}`, data: { version: options.version } })
      ),
      () =>
        Effect.sync(() => removeSupervisorFile(options.root, process.pid)).pipe(
          Effect.andThen(events.append({ type: "supervisor.stopped", message: `pid ${process.pid}` })),
          // Stopping goes on; the log is where a stop that could not be recorded is told.
          Effect.catchCause((cause) => Effect.logError("could not record that the supervisor stopped", cause))
        )
    )
  }))

export const supervisorApp = (config: OrchestratorConfig, options: AppOptions) => {
  const inbox = makeInbox(options.root)
  // The same composition `orch/effect` gives programs (composition.ts), with the built-in plugins.
  const core = orchLayer(config)
  /** The projects watched now, with what the dashboard needs of them: a reload changes them. */
  const webhooksOf = (projects: ReadonlyArray<ProjectConfig>) =>
    projects.flatMap((project) =>
      typeof project.scm?.webhookSecret === "string" && project.scm.webhookSecret !== "" ? [{ repo: project.repo, secret: project.scm.webhookSecret }] : []
    )
  // The listening addresses are the ones it started with: a reload cannot move them.
  const dashboard = Layer.unwrap(Effect.map(Supervisor, (supervisor: Supervisor["Service"]) =>
    dashboardLayer({
      host: config.host,
      port: config.port,
      terminalPort: config.terminalPort,
      directTerminalPort: config.directTerminalPort,
      token: options.token,
      version: options.version,
      projects: Effect.map(supervisor.projects, (projects) => projects.map((p) => ({ id: p.id, name: p.name, repo: p.repo }))),
      hosts: supervisor.hosts,
      inbox,
      terminalOf: terminalOf(supervisor.runtimeOf),
      actions: { send: supervisor.ops.send, kill: supervisor.ops.kill, restore: supervisor.ops.restore, merge: supervisor.merge },
      webhooks: Effect.map(supervisor.projects, webhooksOf),
      onBranchChanged: supervisor.branchChanged,
      keepGoing: supervisor.guard
    })))
  // The socket is bound last, once everything else listens: a supervisor that answers is one that runs (and
  // one still starting refuses connections, which `orch start` waits out on the supervisor lock).
  return ipcServerLayer(socketPath(options.root), handlers(options, config.configPath)).pipe(
    Layer.provideMerge(haltAdmissionFirst),
    Layer.provideMerge(Layer.mergeAll(dashboard, announce(options, config.configPath))),
    Layer.provideMerge(core)
  )
}

/**
 * However the supervisor stops (`orch stop` halts admission itself first; SIGTERM, SIGINT, SIGHUP do not), admission
 * halts once its socket is closed (no command joins a supervisor on its way out) and before anything else is taken
 * down: the starts under way are cancelled and their entries put back while `supervisor.json` still names it, which
 * a command waits out (src/ipc/liveness.ts). Torn down after the rest, a supervisor said `supervisor.stopped`, and
 * a new `orch start` could begin, while the old one's admission still started sessions.
 */
const haltAdmissionFirst = Layer.effectDiscard(Effect.flatMap(Supervisor, (supervisor) => Effect.addFinalizer(() => supervisor.haltAdmission)))
