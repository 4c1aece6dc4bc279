/** Where orch keeps its state: `~/.orchestrator/`, or `ORCH_HOME`. See DESIGN.md "Files". */
import { accessSync, constants, statSync } from "node:fs"
import { join } from "node:path"
import type { HostShape } from "../config/host.ts"

export const dataDir = (host: HostShape): string => {
  const override = host.env.ORCH_HOME
  return override !== undefined && override !== "" ? override : join(host.homeDir, ".orchestrator")
}

/** Why orch cannot keep its state in `root`, with what to do; undefined when it can (a missing one is made at first use). */
export const dataDirProblem = (root: string): string | undefined => {
  const stat = statSync(root, { throwIfNoEntry: false })
  if (stat === undefined) return undefined
  if (!stat.isDirectory()) return `orch keeps its state in ${root}, but that is not a directory; move it away, or set ORCH_HOME to a directory of your own`
  try {
    accessSync(root, constants.W_OK)
  } catch {
    return `orch keeps its state in ${root}, but cannot write there; fix its owner or mode, or set ORCH_HOME to a directory of your own`
  }
  return undefined
}

export interface StorePaths {
  readonly root: string
  readonly sessions: string
  readonly events: string
  /** The inbox (store/Inbox.ts). */
  readonly inbox: string
  readonly locks: string
  /** The running supervisor's log (src/cli/logging.ts writes it). */
  readonly supervisorLog: string
  /** Each host's reachability and headroom, as the running supervisor last saw them (src/hosts/host-watch.ts). */
  readonly hosts: string
  /** The conflicts the supervisor predicts now (conflicts-file.ts). */
  readonly conflicts: string
  /** One merge train per project, `<projectId>.json` (TrainStore.ts). */
  readonly trains: string
  readonly project: (projectId: string) => string
  readonly session: (projectId: string, sessionId: string) => string
  readonly record: (projectId: string, sessionId: string) => string
  readonly prompt: (projectId: string, sessionId: string) => string
  readonly systemPrompt: (projectId: string, sessionId: string) => string
  readonly activity: (projectId: string, sessionId: string) => string
  readonly worktree: (projectId: string, sessionId: string) => string
}

/** A name that is one path segment as it is (`join` would change nothing): joined with a "/", not normalized again. */
const plainName = (name: string) => name !== "" && name !== "." && name !== ".." && !name.includes("/")

export const storePaths = (root: string): StorePaths => {
  const sessions = join(root, "sessions")
  // A listing of a thousand sessions asks for each one's paths: `join` normalizes the whole path again every time.
  const session = (projectId: string, sessionId: string) =>
    plainName(projectId) && plainName(sessionId) ? `${sessions}/${projectId}/${sessionId}` : join(sessions, projectId, sessionId)
  return {
    root,
    sessions,
    events: join(root, "events.jsonl"),
    inbox: join(root, "notifications.jsonl"),
    locks: join(root, "locks"),
    supervisorLog: join(root, "supervisor.log"),
    hosts: join(root, "hosts.json"),
    conflicts: join(root, "conflicts.json"),
    trains: join(root, "trains"),
    project: (projectId) => join(sessions, projectId),
    session,
    record: (p, s) => `${session(p, s)}/session.json`,
    prompt: (p, s) => `${session(p, s)}/prompt.md`,
    systemPrompt: (p, s) => `${session(p, s)}/system-prompt.md`,
    activity: (p, s) => `${session(p, s)}/activity.jsonl`,
    worktree: (p, s) => join(root, "worktrees", p, s)
  }
}
