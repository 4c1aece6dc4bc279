/**
 * The settings of a config's built-in plugins, checked without creating them or asking any host: what
 * `orch config validate` reports beyond the file's own schema. Creating a plugin checks the same.
 */
import * as Result from "effect/Result"
import type { OrchestratorConfig } from "../config/schema.ts"
import type { PluginConfigError } from "./config-error.ts"
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
