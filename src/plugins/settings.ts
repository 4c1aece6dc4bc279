/**
 * The settings of a config's built-in plugins, checked without creating them or asking any host: what
 * `orch config validate` reports beyond the file's own schema. Creating a plugin checks the same.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { loadConfigWithPath } from "../config/load.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { type PluginConfigError, PluginSettingsInvalid } from "./config-error.ts"
import { mergeMethodProblem } from "./scm/Scm.ts"
import { trackerBSettings } from "./tracker/tracker-b.ts"

export const pluginSettingsProblems = (config: OrchestratorConfig): Array<PluginConfigError> =>
  Object.values(config.projects).flatMap((project) => {
    const where = `projects.${project.key}`
    const tracker = project.tracker.plugin === "tracker-b" ? trackerBSettings(project.tracker, `${where}.tracker`) : undefined
    return [
      ...(tracker !== undefined && Result.isFailure(tracker) ? [tracker.failure] : []),
      ...(project.scm?.plugin === "repohost" ? [mergeMethodProblem(project.scm, `${where}.scm`)].filter((p) => p !== undefined) : [])
    ]
  })

/**
 * Loads and checks a config file as `orch config validate` does: the file itself, then its built-in plugins'
 * settings. The supervisor's reload checks a changed file with this too.
 */
export const loadCheckedConfig = Effect.fn("loadCheckedConfig")(function*(file?: string) {
  const loaded = yield* loadConfigWithPath(file)
  const problems = pluginSettingsProblems(loaded.config)
  if (problems.length > 0) return yield* new PluginSettingsInvalid({ path: loaded.path, problems: problems.map((p) => p.message) })
  return loaded
})
