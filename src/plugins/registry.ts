/**
 * A project's plugins: its choice of runtime, agent, workspace, tracker and scm (project value, else `defaults`)
 * resolved to one Layer, so session procedures simply require `Runtime | Agent | Workspace | Tracker | Scm`.
 * ProjectPlugins builds it once per project, with the resources the process's plugins share.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChildProcessSpawner } from "effect/process"
import * as Runtime_ from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Host, type HostShape } from "../config/host.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { agentFromPlugin, runtimeFromPlugin, scmFromPlugin, trackerFromPlugin, workspaceFromPlugin } from "./adapters.ts"
import { Agent, type AgentShape } from "./agent/Agent.ts"
import { makeAiderAgent } from "./agent/aider.ts"
import { makeCodexAgent } from "./agent/codex.ts"
import { makeCodingAgent } from "./agent/coding-agent.ts"
import { makeCommandAgent } from "./agent/command.ts"
import { type BuiltinName, type PluginChoice, projectChoice, type ProjectSlot, unknownPluginMessage } from "./choice.ts"
import { PluginConfigError } from "./config-error.ts"
import { buildSlot, failureReason, layerOrigin, type LayerSlot, type PluginLayersShape, slotLayerFor, type SlotServices, type SlotSubject } from "./layers.ts"
import { type LoadedPlugin, loadPlugin, type PluginLoadError, SLOTS } from "./loader.ts"
import type { RepohostAccess } from "./repohost/access.ts"
import { makeMultiplexer } from "./runtime/multiplexer.ts"
import { makeProcessRuntime, type ProcessTerminals } from "./runtime/process.ts"
import { Runtime } from "./runtime/Runtime.ts"
import { defaultTmuxSocket } from "./runtime/tmux-socket.ts"
import { makeRepohostScm } from "./scm/repohost.ts"
import { NO_PULL_REQUEST, repohostScmProblem, Scm, ScmError } from "./scm/Scm.ts"
import { makeRepohostTracker, repohostTrackerProblem } from "./tracker/repohost.ts"
import { makeLinearTracker } from "./tracker/tracker-b.ts"
import { Tracker } from "./tracker/Tracker.ts"
import { makeCloneWorkspace } from "./workspace/clone.ts"
import { Workspace } from "./workspace/Workspace.ts"
import { makeWorktreeWorkspace } from "./workspace/worktree.ts"

export class UnknownPlugin extends Schema.TaggedError<UnknownPlugin>()("UnknownPlugin", {
  project: Schema.String,
  slot: Schema.Literals(SLOTS),
  name: Schema.String,
  /** The plugin modules the config names under `plugins`. */
  modules: Schema.Array(Schema.String),
  /** The names a program registered Layers under for the slot (orch/effect). */
  registered: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  override readonly [Runtime_.errorExitCode] = 2
  override get message() {
    return `project "${this.project}": ${unknownPluginMessage(this.slot, this.name, this.modules, this.registered)}`
  }
}

/** What every project's plugins in a process share, owned by ProjectPlugins. */
export interface PluginResources {
  /** Where the worktree workspace takes its cross-process locks. */
  readonly locksDir: string
  /** The `process` runtime's terminals: they outlive any one build of a project's plugins. */
  readonly terminals: ProcessTerminals
  /** The repohost gateways (one per credential) and the `gh auth token` answer. */
  readonly repohost: RepohostAccess
  /** A program's own Layers for the slots (`orch/effect`): they come before plugin modules and built-ins. */
  readonly layers?: PluginLayersShape
}

type Maker<A, E> = (project: ProjectConfig, host: HostShape, resources: PluginResources) => Effect.Effect<A, E, ChildProcessSpawner.ChildProcessSpawner>
/** The built-ins of a slot: one maker for each name choice.ts knows. */
type Builtins<S extends ProjectSlot, A, E = never> = Readonly<Record<BuiltinName<S>, Maker<A, E>>>

export const RUNTIMES: Builtins<"runtime", Runtime["Service"]> = {
  multiplexer: (_project, host) => makeMultiplexer(defaultTmuxSocket(host.env)),
  process: (_project, _host, { terminals }) => Effect.succeed(makeProcessRuntime(terminals))
}
export const AGENTS: Builtins<"agent", AgentShape> = {
  "coding-agent": (project) => Effect.succeed(makeCodingAgent(project.agentConfig)),
  codex: (project) => Effect.succeed(makeCodexAgent(project.agentConfig)),
  aider: (project) => Effect.succeed(makeAiderAgent(project.agentConfig)),
  command: (project) => Effect.succeed(makeCommandAgent(project.agentConfig))
}
export const WORKSPACES: Builtins<"workspace", Workspace["Service"]> = {
  worktree: (_project, _host, { locksDir }) => makeWorktreeWorkspace(locksDir),
  clone: () => makeCloneWorkspace()
}
/** For projects without an scm (`scm: none`, a repository with no repohost): no pull requests to see, nothing to merge. */
const noScm: Scm["Service"] = {
  name: "none",
  observe: () => Effect.succeed(NO_PULL_REQUEST),
  merge: () => Effect.fail(new ScmError({ plugin: "none", operation: "merge", reason: "the project has no scm configured" }))
}
export const SCMS: Builtins<"scm", Scm["Service"], PluginConfigError> = {
  repohost: (project, host, { repohost }) => {
    const problem = repohostScmProblem(project.scm, `projects.${project.key}.scm`)
    return problem === undefined
      ? Effect.succeed(makeRepohostScm(project.repo, project.scm ?? { plugin: "repohost" }, host.env, repohost))
      : Effect.fail(problem)
  },
  none: () => Effect.succeed(noScm)
}
/** Tracker `none`, for projects whose issues live nowhere orch can ask: an issue id stands alone, with no lookup. */
const noTracker: Tracker["Service"] = { name: "none", getIssue: () => Effect.succeed(undefined) }
/** Built-in trackers and scms check their own keys when created (PluginConfigError). */
export const TRACKERS: Builtins<"tracker", Tracker["Service"], PluginConfigError> = {
  repohost: (project, host, { repohost }) => {
    const problem = repohostTrackerProblem(project.tracker, `projects.${project.key}.tracker`)
    return problem === undefined ? Effect.succeed(makeRepohostTracker(project.repo, project.tracker, host.env, repohost)) : Effect.fail(problem)
  },
  "tracker-b": (project) => makeLinearTracker(project),
  none: () => Effect.succeed(noTracker)
}

type Resolved<A, E> = (
  project: ProjectConfig,
  host: HostShape,
  resources: PluginResources
) => Effect.Effect<A, E | PluginLoadError, ChildProcessSpawner.ChildProcessSpawner>

/** The settings a plugin module's `create` gets: the tracker's or scm's entry, an agent's `agentConfig`. */
const moduleSettings = (project: ProjectConfig, slot: ProjectSlot): unknown =>
  slot === "tracker" ? project.tracker : slot === "scm" ? project.scm : slot === "agent" ? project.agentConfig : {}

/** The implementation behind the project's choice for `slot` (choice.ts). */
const resolve = <A, E = never>(
  config: OrchestratorConfig,
  project: ProjectConfig,
  choice: PluginChoice,
  builtins: Readonly<Record<string, Maker<A, E>>>,
  fromPlugin: (plugin: LoadedPlugin) => A,
  registered: ReadonlyArray<string> = []
): Effect.Effect<Resolved<A, E>, UnknownPlugin> => {
  const builtin = choice._tag === "Builtin" ? builtins[choice.name] : undefined
  if (builtin !== undefined) return Effect.succeed(builtin)
  if (choice._tag !== "Module") {
    const modules = choice._tag === "Unknown" ? choice.modules : Object.keys(config.plugins)
    return Effect.fail(
      new UnknownPlugin({ project: project.key, slot: choice.slot, name: choice.name, modules, ...(registered.length > 0 ? { registered } : {}) })
    )
  }
  const settings = moduleSettings(project, choice.slot as ProjectSlot)
  return Effect.succeed(() =>
    Effect.map(loadPlugin(choice.source, { slot: choice.slot, name: choice.name, configFile: config.configPath }, settings), fromPlugin)
  )
}

export type PluginSlots = Runtime | Agent | Workspace | Tracker | Scm
export type PluginBuildError = UnknownPlugin | PluginLoadError | PluginConfigError

const SERVICES: { readonly [S in ProjectSlot]: Context.Key<SlotServices[S], SlotServices[S]["Service"]> } = {
  runtime: Runtime,
  agent: Agent,
  workspace: Workspace,
  tracker: Tracker,
  scm: Scm
}

/**
 * The project's slot from the program's own Layer, when it gave one for the slot or registered one under the name the
 * project chose (built in the current scope), else as the config names it (a plugin module, else a built-in). A Layer
 * that fails is the project's plugin that cannot be created.
 */
const resolveSlot = <S extends ProjectSlot, A, E>(
  config: OrchestratorConfig,
  project: ProjectConfig,
  resources: PluginResources,
  slot: S & LayerSlot,
  builtins: Readonly<Record<string, Maker<A, E>>>,
  fromPlugin: (plugin: LoadedPlugin) => A
): Effect.Effect<
  (host: HostShape) => Effect.Effect<A, E | PluginLoadError | PluginConfigError, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope>,
  UnknownPlugin
> => {
  const choice = projectChoice(config, project, slot)!
  const own = resources.layers === undefined ? undefined : slotLayerFor(resources.layers, slot, choice.name, project as SlotSubject<S>)
  if (own === undefined) {
    const registered = Object.keys(resources.layers?.register[slot] ?? {})
    return Effect.map(resolve(config, project, choice, builtins, fromPlugin, registered), (make) => (host: HostShape) => make(project, host, resources))
  }
  const build = buildSlot<S>(own.layer, SERVICES[slot], slot).pipe(
    Effect.map((service) => service as A),
    Effect.mapError((error) =>
      new PluginConfigError({
        key: `projects.${project.key}.${slot}`,
        reason: `${layerOrigin(slot, own.registeredAs)} could not be built: ${failureReason(error)}`
      })
    )
  )
  return Effect.succeed(() => build)
}

/** The Layer of a project's plugins. Needs a ChildProcessSpawner (for git and tmux). */
export const projectPlugins = (
  config: OrchestratorConfig,
  project: ProjectConfig,
  resources: PluginResources
): Layer.Layer<PluginSlots, PluginBuildError, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effectContext(Effect.gen(function*() {
    const host = yield* Host
    // Every choice is resolved before anything is made: an unknown name makes nothing.
    const runtime = yield* resolveSlot(config, project, resources, "runtime", RUNTIMES, runtimeFromPlugin)
    const agent = yield* resolveSlot(config, project, resources, "agent", AGENTS, agentFromPlugin)
    const workspace = yield* resolveSlot(config, project, resources, "workspace", WORKSPACES, workspaceFromPlugin)
    const tracker = yield* resolveSlot(config, project, resources, "tracker", TRACKERS, trackerFromPlugin)
    const scm = project.scm === undefined ? undefined : yield* resolveSlot(config, project, resources, "scm", SCMS, scmFromPlugin)
    return Context.make(Runtime, yield* runtime(host)).pipe(
      Context.add(Scm, scm === undefined ? noScm : yield* scm(host)),
      Context.add(Agent, yield* agent(host)),
      Context.add(Workspace, yield* workspace(host)),
      Context.add(Tracker, yield* tracker(host))
    )
  }))
