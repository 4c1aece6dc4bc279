/**
 * What `orch session ls` says of a project whose plugins could not be built (an unknown plugin name, a module that
 * does not load): one warning each, with where the config writes it, as `orch config validate` finds it. Loaded
 * only when there is such a project (the check imports the plugin manifests).
 */
import * as Effect from "effect/Effect"
import { loadConfigFile } from "../config/load.ts"
import type { ProjectConfig } from "../config/schema.ts"
import { checkPlugins } from "../plugins/config-check.ts"
import type { PluginBuildError } from "../plugins/registry.ts"

export interface Unprobed {
  readonly project: ProjectConfig
  readonly error: PluginBuildError
}

/** `project "app" cannot be used (<what is wrong>, <file:line:col>); its sessions are listed without it, …`. */
export const unprobedWarnings = Effect.fnUntraced(function*(unprobed: ReadonlyArray<Unprobed>) {
  const loaded = yield* Effect.result(loadConfigFile())
  const checked = loaded._tag === "Success"
    ? (yield* checkPlugins(loaded.success, { projects: unprobed.map((u) => u.project.key) })).byProject
    : new Map()
  return unprobed.map(({ project, error }) => {
    const issue = checked.get(project.key)?.[0]
    const problem = issue === undefined ? error.message : `${issue.message}${issue.location !== undefined ? `, ${issue.location}` : ""}`
    return `project "${project.key}" cannot be used (${problem}); its sessions are listed without it, and their terminals show unknown`
  })
})
