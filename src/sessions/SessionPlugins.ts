/**
 * The plugins a session procedure runs with: its project's (ProjectPlugins builds them once per project and config),
 * on the session's host, with what they need of this process (its child processes, the store, the event log); and
 * the hosts' connections, to refuse acting on a session whose host does not answer.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { hostOf, type SessionRecord } from "../domain/session.ts"
import type { ControlDirUnusable } from "../hosts/errors.ts"
import { ProjectPlugins, type ProjectPluginsShape } from "../plugins/ProjectPlugins.ts"
import type { PluginBuildError, PluginSlots } from "../plugins/registry.ts"
import type { Liveness, Runtime, RuntimeError } from "../plugins/runtime/Runtime.ts"
import { EventLog } from "../store/EventLog.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { HostUnreachable } from "./errors.ts"
import { GONE, probed } from "./liveness.ts"

/** What a procedure's plugins need of this process. */
type ProcessServices = ChildProcessSpawner.ChildProcessSpawner | SessionStore | EventLog

export interface SessionPluginsShape {
  /** Runs `effect` with the plugins of `project` as `config` makes them (a session's host's, when `host` names one). */
  readonly provide: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    host?: string
  ) => <A, E, R>(
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | PluginBuildError | ControlDirUnusable, Exclude<Exclude<R, PluginSlots>, ProcessServices>>
  /** The one connection per host of `config`'s hosts. */
  readonly connections: ProjectPluginsShape["connections"]
  /** Runs `effect` with this process's child processes, the store and the event log. */
  readonly provideProcess: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, ProcessServices>>
  /** A session on a host that cannot be reached is left as it is (HostUnreachable): its work there cannot be saved now. */
  readonly refuseUnreachable: (
    config: OrchestratorConfig,
    record: SessionRecord,
    command: string
  ) => Effect.Effect<void, HostUnreachable | ControlDirUnusable>
  /**
   * The liveness of a session that `command` acts on, with its project's plugins in context: one whose host does not
   * answer is refused, never taken for gone.
   */
  readonly livenessFor: (
    config: OrchestratorConfig,
    record: SessionRecord,
    command: string
  ) => Effect.Effect<Liveness, RuntimeError | HostUnreachable | ControlDirUnusable, Runtime>
}

const make = Effect.gen(function*() {
  const plugins = yield* ProjectPlugins
  const context = yield* Effect.context<ProcessServices>()
  const provideProcess: SessionPluginsShape["provideProcess"] = (effect) => Effect.provide(effect, context)
  const refuseUnreachable = Effect.fnUntraced(function*(config: OrchestratorConfig, record: SessionRecord, command: string) {
    const host = hostOf(record)
    if (host === LOCAL) return
    if (config.hosts[host] === undefined) {
      return yield* new HostUnreachable({ sessionId: record.sessionId, host, command, reason: "the config names no such host; add it back under hosts" })
    }
    const answer = yield* (yield* plugins.connections(config)).run(host, ":\n").pipe(Effect.result)
    if (answer._tag === "Failure") return yield* new HostUnreachable({ sessionId: record.sessionId, host, command, reason: answer.failure.message })
  })
  return SessionPlugins.of({
    provide: (config, project, host) => (effect) => provideProcess(effect.pipe(plugins.provide(config, project, host))),
    connections: plugins.connections,
    provideProcess,
    refuseUnreachable,
    livenessFor: (config, record, command) =>
      Effect.flatMap(probed(record), (state) => state !== undefined ? Effect.succeed(state) : Effect.as(refuseUnreachable(config, record, command), GONE))
  })
})

export class SessionPlugins extends Context.Service<SessionPlugins, SessionPluginsShape>()("orch/sessions/SessionPlugins") {
  /** Needs ProjectPlugins, and the process's child processes, store and event log. */
  static readonly layer = Layer.effect(SessionPlugins, make)
}
