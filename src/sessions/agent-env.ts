/**
 * The environment an agent starts with: the caller's, less orch's own repohost token (unless the project asks
 * for it with `agentConfig.shareRepohostToken: true`), the variables carrying the tracker's secrets (tracker-b's
 * `apiKey: ${LINEAR_API_KEY}`), tmux's variables and the crash explorer's, plus the project's `agentConfig.env`, the session's ORCH_*
 * variables and what the agent plugin sets.
 */
import { SECRET_KEY } from "../config/redact.ts"
import type { ProjectConfig } from "../config/schema.ts"
import type { AgentContext } from "../plugins/agent/Agent.ts"
import type { LaunchSpec } from "../plugins/runtime/Runtime.ts"

const REPOHOST_TOKENS = ["GITHUB_TOKEN", "GH_TOKEN"]
/** tmux's own, and the crash-point explorer's (test-only: src/store/crash-points.ts), which must not crash an agent's `orch`. */
const NEVER_PASSED = ["TMUX", "TMUX_PANE", "ORCH_CRASH_AT", "ORCH_CRASH_TRACE"]

export const agentEnvironment = (
  project: ProjectConfig,
  context: AgentContext,
  agentEnv: Readonly<Record<string, string>>,
  callerEnv: Readonly<Record<string, string | undefined>> = process.env
): Pick<LaunchSpec, "env" | "unsetEnv"> => {
  const secrets = project.tracker.plugin === "repohost"
    ? []
    : Object.entries(project.tracker).flatMap(([key, value]) => (SECRET_KEY.test(key) && typeof value === "string" && value !== "" ? [value] : []))
  const carryingSecrets = Object.entries(callerEnv).flatMap(([name, value]) => (value !== undefined && secrets.includes(value) ? [name] : []))
  const unsetEnv = [...NEVER_PASSED, ...(project.agentConfig.shareRepohostToken === true ? [] : REPOHOST_TOKENS), ...carryingSecrets]
  const inherited = Object.entries(callerEnv).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !unsetEnv.includes(entry[0])
  )
  return {
    unsetEnv,
    env: {
      ...Object.fromEntries(inherited),
      ...project.agentConfig.env,
      ORCH_SESSION_ID: context.sessionId,
      ORCH_PROJECT_ID: project.id,
      ORCH_ISSUE_ID: context.issueId,
      ORCH_BRANCH: context.branch,
      ORCH_WORKSPACE: context.workspacePath,
      ORCH_PROMPT_FILE: context.promptFile,
      ORCH_ACTIVITY_FILE: context.activityFile,
      ORCH_DATA_DIR: context.promptFile.replace(/\/[^/]+$/, ""),
      ...agentEnv
    }
  }
}
