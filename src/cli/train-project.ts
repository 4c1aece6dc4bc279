/**
 * The project `orch train ls <project>` names, checked as `orch spawn` checks it: one no config has is an error (exit
 * 2, with the projects there are), and one whose `mergeTrain` is off is said so rather than "no PR in it". The config
 * is the one the running supervisor serves, when it says which file that is; else the one found here.
 */
import * as Effect from "effect/Effect"
import { loadConfigWithPath } from "../config/load.ts"
import type { PingAnswer } from "../ipc/raw-ping.ts"
import { findProject } from "../sessions/project-lookup.ts"

export interface TrainProject {
  /** The project's id: its train file's name. */
  readonly id: string
  /** Set when the project's `mergeTrain` is off: the sentence to say instead of its (empty) train. */
  readonly off?: string
}

/** "The merge train is off for app: …", naming the file to set it in. */
export const trainOffLine = (project: string, configPath: string) =>
  `The merge train is off for ${project}: set \`mergeTrain: true\` in its config (${configPath}) to have its approved and green PRs merged one at a time.`

export const trainProject = Effect.fn("cli.trainProject")(function*(ref: string, supervisor: PingAnswer | undefined) {
  const { config, path } = yield* loadConfigWithPath(supervisor?.configPath)
  const project = yield* findProject(config, ref).pipe(
    // As `orch spawn` says it when a supervisor answers: the config it serves lacks the project.
    Effect.mapError((error) => (error._tag === "ProjectNotFound" && supervisor !== undefined ? error.asSupervisorAnswer() : error))
  )
  const shown: TrainProject = project.mergeTrain ? { id: project.id } : { id: project.id, off: trainOffLine(ref, path) }
  return shown
})
