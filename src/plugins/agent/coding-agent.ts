/**
 * Agent `coding-agent`: Claude Code (`claude`). The system prompt comes from a file, the task is typed once the
 * TUI is ready, and hooks in the worktree's `.claude/settings.local.json` append one JSON line per hook event
 * to the session's `activity.jsonl` with a plain shell command (no process heavier than `sh` per hook). The hooks
 * are edits its launch hands the spawn (`files`), made where the session runs.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { applyEditsLocally, type FileEdit } from "../workspace/file-edits.ts"
import { type AgentContext, AgentError, type AgentShape, programSettings, shellQuote } from "./Agent.ts"
import { claudeActivityFromScreen, claudeLimitFromScreen, claudeStartBlocker } from "./claude-screen.ts"

const PLUGIN = "coding-agent"
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PermissionRequest",
  "Notification",
  "Stop",
  "StopFailure"
] as const
const TOOL_EVENTS: ReadonlyArray<string> = ["PreToolUse", "PostToolUse", "PermissionRequest"]
const SETTINGS_FILE = ".claude/settings.local.json"

/** The hook command: reads the event JSON from stdin and appends `{"ts","event","payload"}` as one line. */
export const hookCommand = (event: string, activityFile: string): string =>
  `p=$(tr -d '\\n'); printf '{"ts":"%s","event":"${event}","payload":%s}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "\${p:-null}" >> ${shellQuote(activityFile)}`

type Settings = { hooks?: Record<string, Array<{ matcher?: string; hooks: Array<{ type: string; command: string }> }>> } & Record<string, unknown>

/** Adds orch's hooks to the settings a worktree may already have, replacing orch hooks from an earlier launch. */
export const withOrchHooks = (settings: Settings, activityFile: string): Settings => {
  const hooks = { ...settings.hooks }
  for (const event of HOOK_EVENTS) {
    const theirs = (hooks[event] ?? []).filter((group) => !group.hooks.some((hook) => hook.command.includes("activity.jsonl")))
    hooks[event] = [...theirs, {
      ...(TOOL_EVENTS.includes(event) ? { matcher: "*" } : {}),
      hooks: [{ type: "command", command: hookCommand(event, activityFile) }]
    }]
  }
  return { ...settings, hooks }
}

/**
 * What launching it needs in the workspace: orch's hooks merged into the settings there, and the settings file kept
 * out of `git status` (and so out of commits) without touching the project's .gitignore.
 */
export const hookEdits = (context: Pick<AgentContext, "workspacePath" | "activityFile">): ReadonlyArray<FileEdit> => [
  {
    _tag: "Update",
    path: join(context.workspacePath, SETTINGS_FILE),
    update: (current) => `${JSON.stringify(withOrchHooks(current === undefined ? {} : JSON.parse(current), context.activityFile), null, 2)}\n`
  },
  { _tag: "ExcludeFromGit", workspace: context.workspacePath, pattern: SETTINGS_FILE }
]

/** Installs the hooks in a workspace on this machine. */
export const installHooks = (context: Pick<AgentContext, "workspacePath" | "activityFile">) =>
  applyEditsLocally(hookEdits(context)).pipe(Effect.mapError((reason) => new AgentError({ plugin: PLUGIN, reason: `cannot install hooks: ${reason}` })))

/**
 * `default` names the mode explicitly: with no flag, Claude Code 2.x starts in "auto" mode, whose safety check
 * runs on Anthropic's servers and blocks every command behind another API endpoint.
 */
const permissionFlags = (permissions: unknown): Array<string> =>
  permissions === "skip"
    ? ["--dangerously-skip-permissions"]
    : permissions === "auto-edit"
    ? ["--permission-mode", "acceptEdits"]
    : ["--permission-mode", "default"]

/** Its `agentConfig` keys beyond the common ones. */
export const codingAgentSettings = programSettings("claude")

export const makeCodingAgent = (agentConfig: Readonly<Record<string, unknown>>): AgentShape => {
  const binary = typeof agentConfig.command === "string" && agentConfig.command !== "" ? agentConfig.command : "claude"
  const base = (context: AgentContext) => [
    binary,
    ...permissionFlags(agentConfig.permissions),
    ...(typeof agentConfig.model === "string" ? ["--model", shellQuote(agentConfig.model)] : []),
    "--append-system-prompt",
    `"$(cat ${shellQuote(context.systemPromptFile)})"`
  ]
  return {
    name: PLUGIN,
    commandLine: binary,
    launch: (context) =>
      Effect.succeed({
        command: [...base(context), "--session-id", context.conversationId].join(" "),
        env: {},
        initialMessage: context.task,
        files: hookEdits(context)
      }),
    resume: (context) => Effect.succeed({ command: [...base(context), "--resume", context.conversationId].join(" "), env: {}, files: hookEdits(context) }),
    isReadyForInput: (screen) => claudeActivityFromScreen(screen) === "ready",
    startBlocker: claudeStartBlocker,
    readsScreen: true,
    activityFromScreen: claudeActivityFromScreen,
    limitFromScreen: claudeLimitFromScreen
  }
}
