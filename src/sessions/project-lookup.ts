/** The project a procedure acts on: the one a command names (or the config's only one), or a session's. */
import * as Effect from "effect/Effect"
import { chooseProject } from "../config/project-choice.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import type { SessionRecord } from "../domain/session.ts"
import { ProjectNotFound, ProjectNotGiven } from "./errors.ts"
import { projectToEnd } from "./recorded-project.ts"

export const projectsOf = (config: OrchestratorConfig) => Object.values(config.projects)

const configFile = (config: OrchestratorConfig) => (config.configPath !== undefined ? { configPath: config.configPath } : {})

/** The project `ref` names (its key or id); `undefined` means the config's only one (`command` says what to name it for). */
export const findProject = (
  config: OrchestratorConfig,
  ref: string | undefined,
  command = "orch start"
): Effect.Effect<ProjectConfig, ProjectNotFound | ProjectNotGiven> => {
  const choice = chooseProject(config.projects, ref)
  switch (choice._tag) {
    case "Chosen":
      return Effect.succeed(choice.project)
    case "Unknown":
      return Effect.fail(new ProjectNotFound({ project: choice.ref, known: Object.keys(config.projects), ...configFile(config) }))
    case "NotGiven":
      return Effect.fail(new ProjectNotGiven({ command, known: Object.keys(config.projects), ...configFile(config) }))
  }
}

/** The session's project as the config has it. */
export const projectOf = (config: OrchestratorConfig, record: SessionRecord): Effect.Effect<ProjectConfig, ProjectNotFound> => {
  const project = projectsOf(config).find((p) => p.id === record.projectId)
  return project === undefined
    ? Effect.fail(new ProjectNotFound({ project: record.projectId, known: projectsOf(config).map((p) => p.id), ...configFile(config) }))
    : Effect.succeed(project)
}

/** The project to end a session with: the config's, else the one its record keeps (its project left the config). */
export const projectToEndOf = (config: OrchestratorConfig, record: SessionRecord): Effect.Effect<ProjectConfig, ProjectNotFound> => {
  const project = projectToEnd(projectsOf(config), record)
  return project === undefined ? projectOf(config, record) : Effect.succeed(project)
}
