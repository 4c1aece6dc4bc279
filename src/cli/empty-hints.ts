/**
 * The hint an empty session list or queue prints: `orch spawn <project> <issue>` only when a project here has a
 * tracker to look issues up in; a project with `tracker: none` starts work from a task in your words (`--task`).
 */
import * as Effect from "effect/Effect"
import { loadConfig } from "../config/load.ts"

/** Each project of the config found here: its key, and whether it has a tracker (undefined: no usable config). */
export type ProjectTrackers = ReadonlyArray<{ readonly key: string; readonly tracked: boolean }> | undefined

/** The command that starts work, pure: the project's key when there is one project, `--task` where no tracker is. */
export const startWork = (command: "spawn" | "queue add", projects: ProjectTrackers): string => {
  const name = projects?.length === 1 ? projects[0]!.key : "<project>"
  const issues = command === "spawn" ? "<issue>" : "<issue>..."
  const task = `--task "<what to do>"`
  if (projects === undefined || projects.every((p) => p.tracked)) return `\`orch ${command} ${name} ${issues}\``
  if (projects.every((p) => !p.tracked)) return `\`orch ${command} ${name} ${task}\``
  return `\`orch ${command} ${name} ${issues}\` (\`${task}\` for a project with no tracker)`
}

export const noSessionsHint = (projects: ProjectTrackers) => `No sessions. Start one with ${startWork("spawn", projects)}.`

export const emptyQueueHint = (projects: ProjectTrackers) => `The queue is empty. Add to it with ${startWork("queue add", projects)}.`

/** The projects of the config found here, when it loads; only read for an empty list, so a listing loads nothing more. */
export const projectTrackersHere = Effect.map(
  Effect.result(loadConfig()),
  (loaded): ProjectTrackers =>
    loaded._tag === "Success"
      ? Object.entries(loaded.success.projects).map(([key, project]) => ({ key, tracked: project.tracker.plugin !== "none" }))
      : undefined
)
