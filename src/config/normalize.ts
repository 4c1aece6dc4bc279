/**
 * Derived defaults and cross-field rules, applied to a config that already decoded against the Schema:
 * project ids, names and session prefixes, plugin defaults, path expansion, routing and reaction merges.
 * Pure: the caller passes the home directory and the directory relative paths start from.
 */
import { basename, isAbsolute, resolve } from "node:path"
import { DEFAULT_NOTIFICATION_ROUTING, DEFAULT_REACTIONS } from "./defaults.ts"
import type { ExpansionIssue } from "./env-expansion.ts"
import { DuplicateProjectIdError, DuplicateSessionPrefixError } from "./errors.ts"
import { LOCAL } from "./host-spec.ts"
import { expandHome } from "./host.ts"
import {
  type EventPriority,
  OrchestratorConfig,
  type PluginConfig,
  PRIORITIES,
  type ProjectConfig,
  type ReactionConfig,
  type ReactionKey,
  type ReactionOverride
} from "./schema.ts"
import { generateSessionPrefix } from "./session-prefix.ts"
import { didYouMean } from "./suggest.ts"

/** Notifiers that work with no entry in `notifiers`. */
export const ZERO_CONFIG_NOTIFIERS = ["hosted", "desktop"] as const

export interface NormalizeContext {
  readonly homeDir: string
  /** Where relative paths start: the config file's directory, else the working directory. */
  readonly baseDir: string
  readonly configPath?: string
}

type Decoded = typeof OrchestratorConfig.Type
type DecodedProject = Decoded["projects"][string]

export type NormalizeResult =
  | { readonly _tag: "Ok"; readonly config: OrchestratorConfig }
  | { readonly _tag: "Issues"; readonly issues: ReadonlyArray<ExpansionIssue> }
  | { readonly _tag: "Duplicate"; readonly error: DuplicateProjectIdError | DuplicateSessionPrefixError }

const expandPath = (path: string, homeDir: string, baseDir: string) => {
  const expanded = expandHome(path, homeDir)
  return isAbsolute(expanded) ? expanded : resolve(baseDir, expanded)
}

const expandPluginPath = (plugin: PluginConfig, ctx: NormalizeContext): PluginConfig =>
  plugin.path === undefined ? plugin : { ...plugin, path: expandPath(plugin.path, ctx.homeDir, ctx.baseDir) }

/**
 * A host's local files (`identityFile`, `~/` in sshOptions values such as UserKnownHostsFile) from orch's home, as
 * every other path of the config: ssh alone would read `~` from the passwd entry. `dataDir` is on the host: left as is.
 */
const expandHostPaths = (host: Decoded["hosts"][string], ctx: NormalizeContext): Decoded["hosts"][string] => ({
  ...host,
  ...(host.identityFile !== undefined ? { identityFile: expandPath(host.identityFile, ctx.homeDir, ctx.baseDir) } : {}),
  ...(host.sshOptions !== undefined
    ? { sshOptions: Object.fromEntries(Object.entries(host.sshOptions).map(([key, value]) => [key, expandHome(value, ctx.homeDir)])) }
    : {})
})

const normalizeProject = (key: string, project: DecodedProject, decoded: Decoded, ctx: NormalizeContext): ProjectConfig => {
  const path = expandPath(project.path, ctx.homeDir, ctx.baseDir)
  const id = basename(path)
  const { tracker, scm, ...rest } = project
  return {
    id,
    key,
    name: project.name ?? key,
    ...rest,
    path,
    sessionPrefix: project.sessionPrefix ?? generateSessionPrefix(id),
    runtime: project.runtime ?? decoded.defaults.runtime,
    agent: project.agent ?? decoded.defaults.agent,
    workspace: project.workspace ?? decoded.defaults.workspace,
    tracker: expandPluginPath(tracker ?? { plugin: "repohost" }, ctx),
    ...(scm !== undefined
      ? { scm: expandPluginPath(scm, ctx) }
      : project.repo.includes("/")
      ? { scm: { plugin: "repohost" } }
      : {}),
    ...(project.agentRulesFile !== undefined
      ? { agentRulesFile: expandPath(project.agentRulesFile, ctx.homeDir, path) }
      : {})
  }
}

const checkSymlinks = (key: string, project: DecodedProject, issues: Array<ExpansionIssue>) =>
  project.symlinks.forEach((link, i) => {
    if (isAbsolute(link) || link.startsWith("~") || link.split("/").includes("..")) {
      issues.push({
        path: ["projects", key, "symlinks", i],
        message: "Expected a path inside the project (relative, without \"..\")"
      })
    }
  })

/** `local` is this machine, never an entry; a project names only hosts there are. */
const checkHosts = (decoded: Decoded, issues: Array<ExpansionIssue>) => {
  if (Object.hasOwn(decoded.hosts, LOCAL)) {
    issues.push({ path: ["hosts", LOCAL], message: "`local` is the machine orch runs on; give the other host another name" })
  }
  const known = [LOCAL, ...Object.keys(decoded.hosts)]
  for (const [key, project] of Object.entries(decoded.projects)) {
    project.hosts?.forEach((name, i) => {
      if (!known.includes(name)) issues.push({ path: ["projects", key, "hosts", i], message: `No host is named ${name}; the hosts are ${known.join(", ")}` })
    })
  }
}

const checkPluginModules = (decoded: Decoded, issues: Array<ExpansionIssue>) => {
  const check = (path: ReadonlyArray<string | number>, module: { readonly package?: string; readonly path?: string }, required: boolean) => {
    if (module.package !== undefined && module.path !== undefined) {
      issues.push({ path, message: "Give either `package` or `path` for a plugin module, not both" })
    } else if (required && module.package === undefined && module.path === undefined) {
      issues.push({ path, message: "Give `package` (an npm package name) or `path` (a file) for the plugin module" })
    }
  }
  for (const [name, module] of Object.entries(decoded.plugins)) check(["plugins", name], module, true)
  for (const [name, notifier] of Object.entries(decoded.notifiers)) check(["notifiers", name], notifier, false)
  for (const [key, project] of Object.entries(decoded.projects)) {
    if (project.tracker) check(["projects", key, "tracker"], project.tracker, false)
    if (project.scm) check(["projects", key, "scm"], project.scm, false)
  }
}

const checkRouting = (
  routing: Readonly<Record<EventPriority, ReadonlyArray<string>>>,
  decoded: Decoded,
  issues: Array<ExpansionIssue>
) => {
  const known = [...ZERO_CONFIG_NOTIFIERS, ...Object.keys(decoded.notifiers)]
  for (const priority of PRIORITIES) {
    routing[priority].forEach((name, i) => {
      if (!known.includes(name)) {
        issues.push({
          path: ["notificationRouting", priority, i],
          message: `Unknown notifier "${name}": add it under \`notifiers\`${didYouMean(name, known)}`
        })
      }
    })
  }
}

const mergeReaction = (base: ReactionConfig, override: ReactionOverride): ReactionConfig => ({ ...base, ...override })

/** The first two projects that share `field`'s value. */
const findDuplicate = (projects: ReadonlyArray<ProjectConfig>, field: "id" | "sessionPrefix") => {
  const seen = new Map<string, ProjectConfig>()
  for (const project of projects) {
    const value = project[field]
    const first = seen.get(value)
    if (first !== undefined) return { value, keys: [first.key, project.key], paths: [first.path, project.path] }
    seen.set(value, project)
  }
  return undefined
}

export const normalize = (decoded: Decoded, ctx: NormalizeContext): NormalizeResult => {
  const issues: Array<ExpansionIssue> = []
  const routing = Object.fromEntries(PRIORITIES.map((priority) => [
    priority,
    decoded.notificationRouting === undefined
      ? DEFAULT_NOTIFICATION_ROUTING[priority]
      : decoded.notificationRouting[priority] ?? decoded.defaults.notifiers
  ])) as Record<EventPriority, ReadonlyArray<string>>
  checkRouting(routing, decoded, issues)
  checkPluginModules(decoded, issues)
  checkHosts(decoded, issues)

  const projects = Object.entries(decoded.projects).map(([key, project]) => {
    checkSymlinks(key, project, issues)
    const normalized = normalizeProject(key, project, decoded, ctx)
    if (normalized.intake !== undefined && normalized.tracker.plugin === "none") {
      issues.push({ path: ["projects", key, "intake"], message: "intake asks the tracker for labelled issues, and this project has none (tracker: none)" })
    }
    return normalized
  })
  if (issues.length > 0) return { _tag: "Issues", issues }

  const duplicateId = findDuplicate(projects, "id")
  if (duplicateId) return { _tag: "Duplicate", error: new DuplicateProjectIdError({ id: duplicateId.value, keys: duplicateId.keys, paths: duplicateId.paths }) }
  const duplicatePrefix = findDuplicate(projects, "sessionPrefix")
  if (duplicatePrefix) {
    return {
      _tag: "Duplicate",
      error: new DuplicateSessionPrefixError({ prefix: duplicatePrefix.value, keys: duplicatePrefix.keys })
    }
  }

  const { $schema: _schema, ...rest } = decoded
  return {
    _tag: "Ok",
    config: {
      ...rest,
      ...(ctx.configPath !== undefined ? { configPath: ctx.configPath } : {}),
      projects: Object.fromEntries(projects.map((project) => [project.key, project])),
      notificationRouting: routing,
      reactions: { ...DEFAULT_REACTIONS, ...decoded.reactions } as Record<ReactionKey, ReactionConfig>,
      notifiers: Object.fromEntries(
        Object.entries(decoded.notifiers).map(([name, notifier]) => [name, expandPluginPath(notifier, ctx)])
      ),
      hosts: Object.fromEntries(Object.entries(decoded.hosts).map(([name, host]) => [name, expandHostPaths(host, ctx)])),
      plugins: Object.fromEntries(
        Object.entries(decoded.plugins).map(([name, module]) => [
          name,
          module.path === undefined ? module : { ...module, path: expandPath(module.path, ctx.homeDir, ctx.baseDir) }
        ])
      )
    }
  }
}

/** The reactions in force for one project: the global ones with the project's overrides merged field by field. */
export const projectReactions = (
  config: OrchestratorConfig,
  project: ProjectConfig
): Readonly<Record<ReactionKey, ReactionConfig>> => {
  const merged: Record<string, ReactionConfig> = { ...config.reactions }
  for (const [key, override] of Object.entries(project.reactions)) {
    const base = merged[key]
    if (base !== undefined) merged[key] = mergeReaction(base, override)
  }
  return merged as Record<ReactionKey, ReactionConfig>
}
