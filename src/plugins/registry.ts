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
import { Host, type HostShape } from "../config/host.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { agentFromPlugin, runtimeFromPlugin, scmFromPlugin, trackerFromPlugin, workspaceFromPlugin } from "./adapters.ts"
import { Agent, type AgentShape } from "./agent/Agent.ts"
import { makeAiderAgent } from "./agent/aider.ts"
import { makeCodexAgent } from "./agent/codex.ts"
import { makeCodingAgent } from "./agent/coding-agent.ts"
import { makeCommandAgent } from "./agent/command.ts"
import type { PluginConfigError } from "./config-error.ts"
import { type LoadedPlugin, loadPlugin, type ModuleSource, type PluginLoadError, type Slot } from "./loader.ts"
import { makeMultiplexer } from "./runtime/multiplexer.ts"
import { makeProcessRuntime, type ProcessTerminals } from "./runtime/process.ts"
import { Runtime } from "./runtime/Runtime.ts"
import { defaultTmuxSocket } from "./runtime/tmux-socket.ts"
import { makeRepohostScm } from "./scm/repohost.ts"
import { mergeMethodProblem, NO_PULL_REQUEST, Scm, ScmError } from "./scm/Scm.ts"
import { makeRepohostTracker, type RepohostAccess } from "./tracker/repohost.ts"
import { makeLinearTracker } from "./tracker/tracker-b.ts"
import { Tracker } from "./tracker/Tracker.ts"
import { makeCloneWorkspace } from "./workspace/clone.ts"
import { Workspace } from "./workspace/Workspace.ts"
import { makeWorktreeWorkspace } from "./workspace/worktree.ts"

export class UnknownPlugin extends Schema.TaggedError<UnknownPlugin>()("UnknownPlugin", {
  project: Schema.String,
  slot: Schema.String,
  name: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override readonly [Runtime_.errorExitCode] = 2
  override get message() {
    return `project "${this.project}": unknown ${this.slot} plugin "${this.name}" (known: ${this.known.join(", ")})`
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
}

type Builtins<A, E = never> = Readonly<
  Record<string, (project: ProjectConfig, host: HostShape, resources: PluginResources) => Effect.Effect<A, E, ChildProcessSpawner.ChildProcessSpawner>>
>

export const RUNTIMES: Builtins<Runtime["Service"]> = {
  multiplexer: (_project, host) => makeMultiplexer(defaultTmuxSocket(host.env)),
  process: (_project, _host, { terminals }) => Effect.succeed(makeProcessRuntime(terminals))
}
export const AGENTS: Builtins<AgentShape> = {
  "coding-agent": (project) => Effect.succeed(makeCodingAgent(project.agentConfig)),
  codex: (project) => Effect.succeed(makeCodexAgent(project.agentConfig)),
  aider: (project) => Effect.succeed(makeAiderAgent(project.agentConfig)),
  command: (project) => Effect.succeed(makeCommandAgent(project.agentConfig))
}
export const WORKSPACES: Builtins<Workspace["Service"]> = {
  worktree: (_project, _host, { locksDir }) => makeWorktreeWorkspace(locksDir),
  clone: () => makeCloneWorkspace()
}
/** For projects without an scm (`scm: none`, a repository with no repohost): no pull requests to see, nothing to merge. */
const noScm: Scm["Service"] = {
  name: "none",
  observe: () => Effect.succeed(NO_PULL_REQUEST),
  merge: () => Effect.fail(new ScmError({ plugin: "none", operation: "merge", reason: "the project has no scm configured" }))
}
export const SCMS: Builtins<Scm["Service"], PluginConfigError> = {
  repohost: (project, host, { repohost }) => {
    const problem = mergeMethodProblem(project.scm, `projects.${project.key}.scm`)
    return problem === undefined
      ? Effect.succeed(makeRepohostScm(project.repo, project.scm ?? { plugin: "repohost" }, host.env, repohost))
      : Effect.fail(problem)
  },
  none: () => Effect.succeed(noScm)
}
/** Tracker `none`, for projects whose issues live nowhere orch can ask: an issue id stands alone, with no lookup. */
const noTracker: Tracker["Service"] = { name: "none", getIssue: () => Effect.succeed(undefined) }
/** Built-in trackers and scms check their own keys when created (PluginConfigError). */
export const TRACKERS: Builtins<Tracker["Service"], PluginConfigError> = {
  repohost: (project, host, { repohost }) => Effect.succeed(makeRepohostTracker(project.repo, project.tracker, host.env, repohost)),
  "tracker-b": (project) => makeLinearTracker(project),
  none: () => Effect.succeed(noTracker)
}

type Resolved<A, E> = (
  project: ProjectConfig,
  host: HostShape,
  resources: PluginResources
) => Effect.Effect<A, E | PluginLoadError, ChildProcessSpawner.ChildProcessSpawner>

/**
 * The implementation behind a plugin name: a module from the slot's own `package`/`path`, else a built-in,
 * else a module named under `plugins`.
 */
const resolve = <A, E = never>(
  config: OrchestratorConfig,
  project: ProjectConfig,
  slot: Slot,
  name: string,
  builtins: Builtins<A, E>,
  fromPlugin: (plugin: LoadedPlugin) => A,
  inline?: ModuleSource & { readonly [key: string]: unknown }
): Effect.Effect<Resolved<A, E>, UnknownPlugin> => {
  const module = inline?.package !== undefined || inline?.path !== undefined ? inline : config.plugins[name]
  const builtin = builtins[name]
  if (builtin !== undefined && module === undefined) return Effect.succeed(builtin)
  if (module === undefined) {
    return Effect.fail(new UnknownPlugin({ project: project.key, slot, name, known: [...Object.keys(builtins), ...Object.keys(config.plugins)] }))
  }
  const pluginConfig = inline ?? (slot === "agent" ? project.agentConfig : {})
  return Effect.succeed(() => Effect.map(loadPlugin(module, { slot, name, configFile: config.configPath }, pluginConfig), fromPlugin))
}

export type PluginSlots = Runtime | Agent | Workspace | Tracker | Scm
export type PluginBuildError = UnknownPlugin | PluginLoadError | PluginConfigError

/** The Layer of a project's plugins. Needs a ChildProcessSpawner (for git and tmux). */
export const projectPlugins = (
  config: OrchestratorConfig,
  project: ProjectConfig,
  resources: PluginResources
): Layer.Layer<PluginSlots, PluginBuildError, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effectContext(Effect.gen(function*() {
    const host = yield* Host
    const runtime = yield* resolve(config, project, "runtime", project.runtime, RUNTIMES, runtimeFromPlugin)
    const agent = yield* resolve(config, project, "agent", project.agent, AGENTS, agentFromPlugin)
    const workspace = yield* resolve(config, project, "workspace", project.workspace, WORKSPACES, workspaceFromPlugin)
    const tracker = yield* resolve(config, project, "tracker", project.tracker.plugin, TRACKERS, trackerFromPlugin, project.tracker)
    const scm = project.scm === undefined ? undefined : yield* resolve(config, project, "scm", project.scm.plugin, SCMS, scmFromPlugin, project.scm)
    return Context.make(Runtime, yield* runtime(project, host, resources)).pipe(
      Context.add(Scm, scm === undefined ? noScm : yield* scm(project, host, resources)),
      Context.add(Agent, yield* agent(project, host, resources)),
      Context.add(Workspace, yield* workspace(project, host, resources)),
      Context.add(Tracker, yield* tracker(project, host, resources))
    )
  }))
