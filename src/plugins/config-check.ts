/**
 * The one check of a config beyond its file's Schema, used by `orch config validate`, `orch doctor`, the supervisor's
 * reload, `orch start` and `orch spawn`: every plugin name a project (or a notifier) uses resolves to a built-in or a
 * configured plugin module (with "did you mean") or to a program's own Layer (PluginLayers, in a program that runs orch
 * through `orch/effect`), each built-in's own settings decode with its Schema, and each
 * plugin module a checked project uses imports with the manifest the config expects. Nothing is created and no host
 * is asked. Every problem is a ValidationIssue with the `file:line:col` of what is wrong.
 */
import * as Effect from "effect/Effect"
import type { ChildProcessSpawner } from "effect/process"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ExpansionIssue } from "../config/env-expansion.ts"
import { ConfigValidationError, type ValidationIssue } from "../config/errors.ts"
import { Host } from "../config/host.ts"
import { loadConfigFile, type LoadedConfig } from "../config/load.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { schemaIssues, toValidationIssues } from "../config/validate.ts"
import { makeInbox } from "../store/Inbox.ts"
import { dataDir } from "../store/paths.ts"
import { aiderSettings } from "./agent/aider.ts"
import { codexSettings } from "./agent/codex.ts"
import { codingAgentSettings } from "./agent/coding-agent.ts"
import { commandAgentSettings } from "./agent/command.ts"
import { type BuiltinName, choicePath, type PluginChoice, PROJECT_SLOTS, projectChoice, unknownPluginMessage } from "./choice.ts"
import { hasLayer, NO_PLUGIN_LAYERS, PluginLayers, type PluginLayersShape } from "./layers.ts"
import { importPlugin } from "./loader.ts"
import { notifierProblems } from "./notifier/registry.ts"
import { repohostScmProblem } from "./scm/Scm.ts"
import { repohostTrackerProblem } from "./tracker/repohost.ts"
import { trackerBSettings } from "./tracker/tracker-b.ts"

type Path = ReadonlyArray<string | number>

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

/** Each built-in agent's `agentConfig` keys beyond the common ones. */
const AGENT_SETTINGS: Readonly<Record<BuiltinName<"agent">, Schema.Decoder<unknown>>> = {
  "coding-agent": codingAgentSettings,
  codex: codexSettings,
  aider: aiderSettings,
  command: commandAgentSettings
}

/** A plugin module a checked project uses, with where the config names it. */
export type ModuleChoice = Extract<PluginChoice, { readonly _tag: "Module" }>

export interface ProjectCheck {
  /** Problems known without importing anything: unknown names, built-ins' settings. */
  readonly issues: ReadonlyArray<ExpansionIssue>
  /** The plugin modules it uses: importing them tells whether their manifests match. */
  readonly modules: ReadonlyArray<ModuleChoice>
}

/** A problem a built-in reports as `PluginConfigError` (its key dot-joined under `where`), at its path. */
const keyIssue = (where: Path, error: { readonly key: string; readonly reason: string }): ExpansionIssue => {
  const prefix = where.join(".")
  const rest = error.key.startsWith(`${prefix}.`) ? error.key.slice(prefix.length + 1).split(".") : []
  return { path: [...where, ...rest], message: error.reason }
}

/**
 * What one project's plugins lack, read from the config alone. `raw` is the document as written, to point at the line;
 * a slot the program gives its own Layer for (`layers`) is the program's. Pure.
 */
export const checkProject = (
  config: Pick<OrchestratorConfig, "plugins">,
  project: ProjectConfig,
  raw?: unknown,
  layers: PluginLayersShape = NO_PLUGIN_LAYERS
): ProjectCheck => {
  const issues: Array<ExpansionIssue> = []
  const modules: Array<ModuleChoice> = []
  const own = ["projects", project.key] as const
  for (const slot of PROJECT_SLOTS) {
    const choice = projectChoice(config, project, slot)
    if (choice === undefined || hasLayer(layers, slot, choice.name)) continue
    switch (choice._tag) {
      case "Unknown": {
        const at = choicePath(raw, project, slot)
        issues.push({
          path: slot === "tracker" || slot === "scm" ? [...at, "plugin"] : at,
          message: unknownPluginMessage(slot, choice.name, choice.modules, Object.keys(layers.register[slot] ?? {}))
        })
        break
      }
      case "Module":
        modules.push(choice)
        break
      case "Builtin":
        if (slot === "agent") {
          const decoded = Schema.decodeUnknownResult(AGENT_SETTINGS[choice.name as BuiltinName<"agent">])(project.agentConfig, { errors: "all" })
          if (Result.isFailure(decoded)) {
            // With no `agentConfig` written, the line to point at is the agent's: it is what needs the settings.
            const written = isRecord(raw) && isRecord(raw.projects) && isRecord(raw.projects[project.key]) &&
              (raw.projects[project.key] as Record<string, unknown>).agentConfig !== undefined
            const at = written ? {} : { at: choicePath(raw, project, "agent") }
            for (const issue of schemaIssues(decoded.failure.issue)) {
              issues.push({ path: [...own, "agentConfig", ...issue.path], message: issue.message, ...at })
            }
          }
        } else if (slot === "tracker" && choice.name === "tracker-b") {
          const settings = trackerBSettings(project.tracker, `projects.${project.key}.tracker`)
          if (Result.isFailure(settings)) issues.push(keyIssue([...own, "tracker"], settings.failure))
        } else if (slot === "tracker" && choice.name === "repohost") {
          const problem = repohostTrackerProblem(project.tracker, `projects.${project.key}.tracker`)
          if (problem !== undefined) issues.push(keyIssue([...own, "tracker"], problem))
        } else if (slot === "scm" && choice.name === "repohost") {
          const problem = repohostScmProblem(project.scm, `projects.${project.key}.scm`)
          if (problem !== undefined) issues.push(keyIssue([...own, "scm"], problem))
        }
        break
    }
  }
  if (project.mergeTrain) {
    const scm = projectChoice(config, project, "scm")
    if (scm === undefined || (!hasLayer(layers, "scm", scm.name) && !(scm._tag === "Builtin" && scm.name === "repohost"))) {
      issues.push({
        path: [...own, "mergeTrain"],
        message: `needs \`scm: repohost\`: the merge train brings PRs up to date and merges them through the repohost's API, which ${
          scm === undefined ? "a project without an scm" : `the scm \`${scm.name}\``
        } does not offer`
      })
    }
  }
  return { issues, modules }
}

export interface CheckScope {
  /** The projects to check, by key or id; every project, and the notifiers, when not given. */
  readonly projects?: ReadonlyArray<string>
}

const inScope = (project: ProjectConfig, scope: CheckScope) =>
  scope.projects === undefined || scope.projects.includes(project.key) || scope.projects.includes(project.id)

export interface PluginIssues {
  /** Every problem, one per place in the file. */
  readonly all: ReadonlyArray<ValidationIssue>
  /** The problems of each checked project's plugins, by project key (one in `defaults` is each of its projects'). */
  readonly byProject: ReadonlyMap<string, ReadonlyArray<ValidationIssue>>
}

/**
 * Every problem of the plugins of a loaded config (the projects in scope; for a whole config, the notifiers too), each
 * with where it is written. Plugin modules are imported once each, and only those the checked part uses.
 */
export const checkPlugins = Effect.fn("ConfigCheck.plugins")(function*(
  loaded: Pick<LoadedConfig, "config"> & Partial<Pick<LoadedConfig, "raw" | "locate">>,
  scope: CheckScope = {}
): Effect.fn.Return<PluginIssues, never, ChildProcessSpawner.ChildProcessSpawner> {
  const { config } = loaded
  const options = loaded.locate === undefined ? {} : { locate: loaded.locate }
  const imports = new Map<string, ExpansionIssue | undefined>()
  const importIssue = Effect.fnUntraced(function*(module: ModuleChoice) {
    const key = JSON.stringify([module.slot, module.name, module.source])
    if (!imports.has(key)) {
      const result = yield* Effect.result(importPlugin(module.source, { slot: module.slot, name: module.name, configFile: config.configPath }))
      imports.set(key, Result.isFailure(result) ? { path: module.where, message: result.failure.message } : undefined)
    }
    return imports.get(key)
  })
  const byProject = new Map<string, ReadonlyArray<ValidationIssue>>()
  const found: Array<ExpansionIssue> = []
  const layers = yield* PluginLayers
  for (const project of Object.values(config.projects).filter((p) => inScope(p, scope))) {
    const check = checkProject(config, project, loaded.raw, layers)
    const issues = [...check.issues]
    for (const module of check.modules) {
      const issue = yield* importIssue(module)
      if (issue !== undefined) issues.push(issue)
    }
    byProject.set(project.key, toValidationIssues(issues, options))
    found.push(...issues)
  }
  if (scope.projects === undefined) found.push(...yield* notifierProblems(config, makeInbox(dataDir(yield* Host))))
  return { all: toValidationIssues(found, options), byProject }
})

/** The loaded config when its plugins have no problem; else every problem, as one ConfigValidationError. */
export const checkLoadedConfig = Effect.fnUntraced(function*<L extends Pick<LoadedConfig, "config"> & Partial<Pick<LoadedConfig, "raw" | "locate">>>(
  loaded: L,
  scope: CheckScope = {}
) {
  const { all } = yield* checkPlugins(loaded, scope)
  if (all.length > 0) return yield* new ConfigValidationError({ issues: all })
  return loaded
})

/**
 * Loads a config file (the one the search finds, without `file`) and checks it as `orch config validate` does: the
 * file's Schema and rules, then its plugins (those of the projects in `scope`). The supervisor's reload, `orch start`
 * and a spawn without a supervisor load their config with this.
 */
export const loadCheckedConfig = Effect.fn("loadCheckedConfig")(function*(file?: string, scope: CheckScope = {}) {
  const loaded = yield* checkLoadedConfig(yield* loadConfigFile(file), scope)
  return { config: loaded.config, path: loaded.path }
})
