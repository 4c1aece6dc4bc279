/**
 * Every session with the liveness of its terminal, for lists (`orch session ls`, `orch status --probe`): probed in one
 * call per project's runtime, and a session of no project of the config (or with no config at all) too when it is a
 * tmux session here, on the socket its handle names.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { hostOf, type RuntimeHandle, type SessionRecord } from "../domain/session.ts"
import type { PluginBuildError } from "../plugins/registry.ts"
import { makeMultiplexer, socketOf } from "../plugins/runtime/multiplexer.ts"
import { type Liveness, Runtime } from "../plugins/runtime/Runtime.ts"
import { SessionStore } from "../store/SessionStore.ts"
import type { ProbeAllError } from "./procedure-errors.ts"
import { projectsOf } from "./project-lookup.ts"
import { SessionPlugins } from "./SessionPlugins.ts"

export interface ProbedSessions {
  readonly records: ReadonlyArray<SessionRecord>
  /** The records that cannot be read, each said in a sentence (SessionStore's `list`): listed nowhere, but never unsaid. */
  readonly problems: ReadonlyArray<string>
  /** Each probed terminal's liveness, by its runtime handle's id. */
  readonly liveness: ReadonlyMap<string, Liveness>
  /** The projects whose plugins could not be built, and why: their sessions are not probed (their terminals unknown). */
  readonly unprobed: ReadonlyArray<{ readonly project: ProjectConfig; readonly error: PluginBuildError }>
}

export interface ProberShape {
  readonly probeAll: () => Effect.Effect<ProbedSessions, ProbeAllError>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins

  /** The sessions of the config's projects, through their projects' runtimes. */
  const probeProjects = Effect.fnUntraced(function*(config: OrchestratorConfig, records: ReadonlyArray<SessionRecord>, into: Map<string, Liveness>) {
    // A project whose plugins cannot be built stops no listing: its sessions are not probed (their terminals unknown).
    const unprobed: Array<{ readonly project: ProjectConfig; readonly error: PluginBuildError }> = []
    for (const project of projectsOf(config)) {
      const handles = records.filter((r) => r.projectId === project.id && r.runtime !== null).map((r) => r.runtime!)
      if (handles.length === 0) continue
      const probed = yield* Runtime.use((runtime) => runtime.probe(handles)).pipe(
        plugins.provide(config, project),
        Effect.catchTag(["UnknownPlugin", "PluginLoadError", "PluginConfigError"], (error) =>
          Effect.sync(() => {
            unprobed.push({ project, error })
            return new Map<string, Liveness>()
          }))
      )
      for (const [id, state] of probed) into.set(id, state)
    }
    return unprobed
  })

  /** The tmux sessions here of no project of the config, on the sockets their handles name. */
  const probeStrays = Effect.fnUntraced(function*(config: OrchestratorConfig, records: ReadonlyArray<SessionRecord>, into: Map<string, Liveness>) {
    const owned = new Set(projectsOf(config).map((p) => p.id))
    const bySocket = new Map<string, Array<RuntimeHandle>>()
    for (const record of records) {
      const handle = record.runtime
      const socket = handle === null || owned.has(record.projectId) || hostOf(record) !== LOCAL ? undefined : socketOf(handle)
      if (handle !== null && socket !== undefined) bySocket.set(socket, [...(bySocket.get(socket) ?? []), handle])
    }
    for (const [socket, handles] of bySocket) {
      const probed = yield* Effect.flatMap(makeMultiplexer(socket), (tmux) => tmux.probe(handles)).pipe(plugins.provideProcess)
      for (const [id, state] of probed) into.set(id, state)
    }
  })

  const probeAll = Effect.fn("Sessions.probeAll")(function*() {
    const config = yield* configs.current
    const { records, problems } = yield* store.list
    const result = new Map<string, Liveness>()
    const unprobed = yield* probeProjects(config, records, result)
    yield* probeStrays(config, records, result)
    return { records, problems, liveness: result, unprobed } satisfies ProbedSessions
  })

  return Prober.of({ probeAll })
})

export class Prober extends Context.Service<Prober, ProberShape>()("orch/sessions/Prober") {
  /** Needs the config in force, the store and SessionPlugins. */
  static readonly layer = Layer.effect(Prober, make)
}
