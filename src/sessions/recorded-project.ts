/**
 * The project of a session as its record keeps it, for ending a session whose project is in no config any more
 * (removed from the file while the session ran): a kill or rm needs only its runtime, its workspace plugin and the
 * repository the worktree belongs to. Nothing is looked up: no tracker, no scm.
 */
import * as Schema from "effect/Schema"
import { AgentConfig, type ProjectConfig } from "../config/schema.ts"
import type { SessionRecord } from "../domain/session.ts"

/** The project to end `record`'s session with: the config's, else the record's own; undefined when neither has it. */
export const projectToEnd = (projects: ReadonlyArray<ProjectConfig>, record: SessionRecord): ProjectConfig | undefined => {
  const configured = projects.find((p) => p.id === record.projectId)
  if (configured !== undefined || record.project === undefined) return configured
  const kept = record.project
  return {
    id: record.projectId,
    key: kept.key,
    name: kept.key,
    repo: kept.repo,
    path: kept.path,
    defaultBranch: kept.defaultBranch,
    sessionPrefix: record.sessionId.replace(/-\d+$/u, ""),
    runtime: kept.runtime,
    workspace: kept.workspace,
    // Ending a session never starts an agent: a built-in one that needs no settings to be made.
    agent: "command",
    tracker: { plugin: "none" },
    scm: { plugin: "none" },
    symlinks: [],
    postCreate: [],
    mergeTrain: false,
    agentConfig: Schema.decodeUnknownSync(AgentConfig)({}),
    reactions: {}
  }
}
