/**
 * The plugins of each project, one service per process: a project's runtime, agent, workspace, tracker and scm
 * are built the first time they are asked for and then reused for as long as its config stays the same; they live
 * in the scope of this service's layer and are closed with it. What plugins share across projects is state of
 * this service, not of their modules: the `process` runtime's terminals (which outlive a reload's new build of a
 * project's plugins, and end when the layer closes, i.e. when the supervisor stops), the repohost gateways (one per
 * credential) and the `gh auth token` answer. The supervisor's config reload builds the plugins of added and
 * changed projects first (`prepare`), then puts them in force (its `commit`), closing those they replace.
 * A program's own Layers for the slots (PluginLayers, layers.ts), read when this service is made, come first.
 * Notifiers are not here: the notifier router owns them.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { join } from "node:path"
import { type ConfigChange, projectChanged } from "../config/change.ts"
import { LOCAL } from "../config/host-spec.ts"
import { Host } from "../config/host.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import type { ControlDirUnusable } from "../hosts/errors.ts"
import { HostConnections, type HostConnectionsShape } from "../hosts/HostConnections.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { Agent, type AgentShape } from "./agent/Agent.ts"
import { HostStart, makeHostStart } from "./host-start.ts"
import { PluginLayers } from "./layers.ts"
import { type PluginBuildError, type PluginResources, type PluginSlots, projectPlugins } from "./registry.ts"
import { makeRepohostAccess } from "./repohost/access.ts"
import { makeHostRuntime } from "./runtime/host-runtime.ts"
import { makeProcessTerminals } from "./runtime/process.ts"
import { makeRemoteTmux } from "./runtime/remote-tmux.ts"
import { Runtime, type RuntimeShape } from "./runtime/Runtime.ts"
import { Scm, type ScmShape } from "./scm/Scm.ts"
import { Tracker, type TrackerShape } from "./tracker/Tracker.ts"
import { makeRemoteWorkspace } from "./workspace/remote-workspace.ts"
import { Workspace, type WorkspaceShape } from "./workspace/Workspace.ts"

/** A project's plugins, built. */
export interface ProjectSlots {
  readonly project: ProjectConfig
  readonly runtime: RuntimeShape
  readonly agent: AgentShape
  readonly workspace: WorkspaceShape
  readonly tracker: TrackerShape
  /** Where its pull requests are, when the project has an scm. */
  readonly scm?: ScmShape
  /** All of them, for session procedures that require the slot services. */
  readonly context: Context.Context<PluginSlots>
}

/** A reload's plugins, built and not yet in force: `commit` puts them in force and closes those they replace. */
export interface PreparedPlugins {
  readonly built: ReadonlyArray<ProjectSlots>
  /** Cannot fail; uninterruptible. */
  readonly commit: Effect.Effect<void>
}

export interface ProjectPluginsShape {
  /**
   * The plugins of `project` as `config` makes them: those built before when its config is the same, else built
   * now and kept. When another config of the project is in force here (a procedure that began before a reload),
   * they are built for the caller alone and closed with its scope.
   */
  readonly of: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    host?: string
  ) => Effect.Effect<ProjectSlots, PluginBuildError | ControlDirUnusable, Scope.Scope>
  /**
   * Runs `effect` with the plugins of `project` (as `of` gives them). The runtime reaches every session where its
   * handle says it runs; on a `host` other than local, new sessions and the workspace are made on that host.
   */
  readonly provide: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    host?: string
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PluginBuildError | ControlDirUnusable, Exclude<R, PluginSlots>>
  /** The one connection per host of `config`'s hosts (made once per hosts config, closed with this service). */
  readonly connections: (config: OrchestratorConfig) => Effect.Effect<HostConnectionsShape, ControlDirUnusable>
  /**
   * A reload, first half: builds the plugins of the projects `change` adds or changes. When one cannot be built,
   * those built are closed again and nothing changed. Its `commit` puts them in force and closes the plugins of the
   * projects it changed or removed.
   */
  readonly prepare: (change: ConfigChange) => Effect.Effect<PreparedPlugins, PluginBuildError>
}

export interface ProjectPluginsOptions {
  /** This process is the supervisor: only it may own agents (the `process` runtime starts them here). */
  readonly supervisor: boolean
}

/** How one project's plugins are built: the registry's, or a test's fakes. */
export type BuildPlugins = (
  config: OrchestratorConfig,
  project: ProjectConfig,
  resources: PluginResources
) => Layer.Layer<PluginSlots, PluginBuildError, ChildProcessSpawner.ChildProcessSpawner>

/** How long the connections of a replaced hosts config stay open for what was started through them. */
export const RETIRE_CONNECTIONS_AFTER = Duration.minutes(1)

interface Entry {
  readonly config: OrchestratorConfig
  readonly slots: ProjectSlots
  readonly scope: Scope.Closeable
}

const slotsOf = (project: ProjectConfig, context: Context.Context<PluginSlots>): ProjectSlots => ({
  project,
  context,
  runtime: Context.get(context, Runtime),
  agent: Context.get(context, Agent),
  workspace: Context.get(context, Workspace),
  tracker: Context.get(context, Tracker),
  ...(project.scm !== undefined ? { scm: Context.get(context, Scm) } : {})
})

const make = Effect.fnUntraced(function*(build: BuildPlugins, options: ProjectPluginsOptions) {
  const scope = yield* Effect.scope
  const host = yield* Host
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const store = yield* SessionStore
  const terminals = yield* makeProcessTerminals(options)
  const resources: PluginResources = { locksDir: store.paths.locks, terminals, repohost: makeRepohostAccess(host.env), layers: yield* PluginLayers }
  const entries = new Map<string, Entry>()
  /** Held while plugins are built for the table or swapped in it, so no project's are built twice. */
  const lock = yield* Semaphore.make(1)

  const buildIn = (owner: Scope.Scope, config: OrchestratorConfig, project: ProjectConfig) =>
    Layer.buildWithScope(build(config, project, resources), owner).pipe(
      Effect.map((context) => slotsOf(project, context)),
      Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner),
      Effect.provideService(Host, host)
    )
  /** Built in a scope of their own (under the layer's), closed again when the build fails. */
  const buildEntry = Effect.fnUntraced(function*(config: OrchestratorConfig, project: ProjectConfig) {
    const own = yield* Scope.fork(scope)
    const slots = yield* buildIn(own, config, project).pipe(Effect.onError((cause) => Scope.close(own, Exit.failCause(cause))))
    return { config, slots, scope: own } satisfies Entry
  })
  /**
   * The connections of the hosts config in force (the same hosts, the same masters). When a reload changes the hosts,
   * new ones are made and the old ones are closed `RETIRE_CONNECTIONS_AFTER` later, once what went through them ended.
   */
  let hostsInForce: { readonly key: string; readonly connections: HostConnectionsShape; readonly scope: Scope.Closeable } | undefined
  const connectionsLock = yield* Semaphore.make(1)
  const connections = Effect.fn("ProjectPlugins.connections")(function*(config: OrchestratorConfig) {
    const key = JSON.stringify(config.hosts)
    return yield* connectionsLock.withPermits(1)(Effect.gen(function*() {
      if (hostsInForce?.key === key) return hostsInForce.connections
      const own = yield* Scope.fork(scope)
      const made = yield* HostConnections.make({
        hosts: Object.entries(config.hosts).map(([name, spec]) => ({ name, spec })),
        controlDir: join(store.paths.root, "ssh")
      }).pipe(
        Scope.provide(own),
        Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner),
        Effect.onError((cause) => Scope.close(own, Exit.failCause(cause)))
      )
      if (hostsInForce !== undefined) {
        yield* Effect.forkIn(Effect.andThen(Effect.sleep(RETIRE_CONNECTIONS_AFTER), Scope.close(hostsInForce.scope, Exit.void)), scope)
      }
      hostsInForce = { key, connections: made, scope: own }
      return made
    }))
  })
  /** `slots` with the runtime reaching each session's host, and for a remote `host`, the workspace there. */
  const onHost = Effect.fnUntraced(function*(slots: ProjectSlots, config: OrchestratorConfig, host: string) {
    if (host === LOCAL && Object.keys(config.hosts).length === 0) return slots
    const hosts = yield* connections(config)
    const remote = (name: string) => {
      const spec = config.hosts[name]
      return spec === undefined || name === LOCAL ? undefined : makeRemoteTmux(hosts, name, spec.dataDir)
    }
    const runtime = makeHostRuntime(slots.runtime, remote, host)
    const spec = config.hosts[host]
    if (host === LOCAL || spec === undefined) return { ...slots, runtime, context: slots.context.pipe(Context.add(Runtime, runtime)) }
    const workspace = makeRemoteWorkspace(hosts, host, spec.dataDir)
    const context = slots.context.pipe(
      Context.add(Runtime, runtime),
      Context.add(Workspace, workspace),
      Context.add(HostStart, makeHostStart(hosts, host, spec.dataDir))
    )
    return { ...slots, runtime, workspace, context }
  })
  const sameAs = (entry: Entry, config: OrchestratorConfig, project: ProjectConfig) => !projectChanged(entry.config, config, entry.slots.project, project)

  const of = Effect.fn("ProjectPlugins.of")(function*(config: OrchestratorConfig, project: ProjectConfig, host: string = LOCAL) {
    return yield* onHost(yield* ofLocal(config, project), config, host)
  })
  const ofLocal = Effect.fnUntraced(function*(config: OrchestratorConfig, project: ProjectConfig) {
    const kept = yield* lock.withPermits(1)(Effect.suspend(() => {
      const cached = entries.get(project.id)
      if (cached === undefined) {
        return Effect.map(buildEntry(config, project), (entry) => {
          entries.set(project.id, entry)
          return entry.slots
        })
      }
      return Effect.succeed(sameAs(cached, config, project) ? cached.slots : undefined)
    }))
    return kept ?? (yield* buildIn(yield* Effect.scope, config, project))
  })

  const provide =
    (config: OrchestratorConfig, project: ProjectConfig, host: string = LOCAL) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | PluginBuildError | ControlDirUnusable, Exclude<R, PluginSlots>> =>
      Effect.scopedWith((owner) => Effect.flatMap(Scope.provide(of(config, project, host), owner), (slots) => Effect.provideContext(effect, slots.context)))

  const prepare = Effect.fn("ProjectPlugins.prepare")(function*(change: ConfigChange) {
    const next = new Map(Object.values(change.next.projects).map((project) => [project.id, project]))
    const built: Array<Entry> = []
    yield* Effect.forEach([...change.added, ...change.changed], (id) => Effect.map(buildEntry(change.next, next.get(id)!), (entry) => built.push(entry)), {
      discard: true
    }).pipe(
      Effect.onError(() => Effect.forEach(built, (entry) => Scope.close(entry.scope, Exit.void), { discard: true }))
    )
    const commit = lock.withPermits(1)(Effect.gen(function*() {
      const retired = [...change.removed, ...built.map((entry) => entry.slots.project.id)].flatMap((id) => entries.get(id) ?? [])
      for (const id of change.removed) entries.delete(id)
      for (const entry of built) entries.set(entry.slots.project.id, entry)
      yield* Effect.forEach(retired, (entry) => Scope.close(entry.scope, Exit.void), { discard: true })
    })).pipe(Effect.uninterruptible)
    return { built: built.map((entry) => entry.slots), commit } satisfies PreparedPlugins
  })

  return ProjectPlugins.of({ of, provide, prepare, connections })
})

export class ProjectPlugins extends Context.Service<ProjectPlugins, ProjectPluginsShape>()("orch/plugins/ProjectPlugins") {
  /** Plugins built by `build` (the registry's, or fakes). Needs the session store (for its locks) and a ChildProcessSpawner. */
  static readonly layerWith = (build: BuildPlugins, options: ProjectPluginsOptions) => Layer.effect(ProjectPlugins, make(build, options))
  /** The plugins each project's config names. */
  static readonly layer = (options: ProjectPluginsOptions) => ProjectPlugins.layerWith(projectPlugins, options)
  /**
   * Every project gets the plugins `slots` makes for it (the slots' `layerTest` fakes, say), built once per project
   * and config as the real ones are.
   */
  static readonly layerTest = (slots: (project: ProjectConfig) => Layer.Layer<PluginSlots>, options: ProjectPluginsOptions = { supervisor: true }) =>
    ProjectPlugins.layerWith((_config, project) => slots(project), options)
}
