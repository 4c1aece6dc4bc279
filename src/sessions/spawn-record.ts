/** A spawned session's record as its spawn first writes it, and the `session.spawned` event of a whole one. */
import type { NewEvent } from "../domain/event.ts"
import type { SessionRecord } from "../domain/session.ts"
import { taskTitle } from "../domain/task.ts"
import type { StorePaths } from "../store/paths.ts"
import type { SpawnRun } from "./spawn-run.ts"

export interface FirstRecordFacts {
  readonly sessionId: string
  readonly branch: string
  /** The session's files where it runs (its worktree's place). */
  readonly there: StorePaths
  readonly createdAt: string
  readonly conversationId: string
  /** The spawning process: while it runs the spawn is under way; once it is gone, lists show it interrupted. */
  readonly spawner: { readonly pid: number; readonly startTime?: string }
}

/** The record of a session being spawned (`spawning`), its spawn journal naming the process that spawns it. */
export const firstRecord = (run: SpawnRun, facts: FirstRecordFacts): SessionRecord => {
  const { project, work, options } = run
  return {
    sessionId: facts.sessionId,
    projectId: project.id,
    issueId: run.issueId,
    ...(work._tag === "Task" ? { task: { title: taskTitle(work.text) } } : {}),
    ...(options.priority !== undefined && options.priority !== 0 ? { priority: options.priority } : {}),
    ...(options.configPath !== undefined ? { configPath: options.configPath } : {}),
    project: {
      key: project.key,
      path: project.path,
      repo: project.repo,
      defaultBranch: project.defaultBranch,
      runtime: project.runtime,
      workspace: project.workspace
    },
    ...(run.remote ? { host: options.host! } : {}),
    status: "spawning",
    activity: "unknown",
    branch: facts.branch,
    workspacePath: facts.there.worktree(project.id, facts.sessionId),
    runtime: null,
    agent: { plugin: run.agent.name, conversationId: facts.conversationId },
    pr: null,
    createdAt: facts.createdAt,
    updatedAt: facts.createdAt,
    spawn: { ...facts.spawner, startedAt: facts.createdAt }
  }
}

/** The `session.spawned` event of a whole session. */
export const spawnedEvent = (record: SessionRecord): NewEvent => ({
  type: "session.spawned",
  sessionId: record.sessionId,
  projectId: record.projectId,
  issueId: record.issueId,
  data: {
    branch: record.branch,
    workspacePath: record.workspacePath,
    agent: record.agent.plugin,
    runtime: record.runtime?.plugin,
    ...(record.task !== undefined ? { task: record.task.title } : {})
  }
})
