/**
 * Agent `coding-agent`: Claude Code (`claude`). The system prompt comes from a file, the task is typed once the
 * TUI is ready, and hooks in the worktree's `.claude/settings.local.json` append one JSON line per hook event
 * to the session's `activity.jsonl` with a plain shell command (no process heavier than `sh` per hook).
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, isAbsolute, join } from "node:path"
import { type AgentContext, AgentError, type AgentShape, shellQuote } from "./Agent.ts"
import { claudeActivityFromScreen, claudeStartBlocker } from "./claude-screen.ts"

const PLUGIN = "coding-agent"
export const HOOK_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Notification", "Stop"] as const
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

/** Keeps the settings file out of `git status` (and so out of commits) without touching the project's .gitignore. */
const excludeFromGit = (workspacePath: string) => {
  try {
    const common = execFileSync("git", ["-C", workspacePath, "rev-parse", "--git-common-dir"], { encoding: "utf8" }).trim()
    const exclude = join(isAbsolute(common) ? common : join(workspacePath, common), "info", "exclude")
    const current = existsSync(exclude) ? readFileSync(exclude, "utf8") : ""
    if (!current.split("\n").includes(SETTINGS_FILE)) {
      mkdirSync(dirname(exclude), { recursive: true })
      appendFileSync(exclude, `${current === "" || current.endsWith("\n") ? "" : "\n"}${SETTINGS_FILE}\n`)
    }
  } catch {
    // not a git workspace: nothing to keep clean
  }
}

export const installHooks = (context: AgentContext) =>
  Effect.try({
    try: () => {
      const file = join(context.workspacePath, SETTINGS_FILE)
      const current: Settings = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {}
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, `${JSON.stringify(withOrchHooks(current, context.activityFile), null, 2)}\n`)
      excludeFromGit(context.workspacePath)
    },
    catch: (cause) => new AgentError({ plugin: PLUGIN, reason: `cannot install hooks: ${cause instanceof Error ? cause.message : String(cause)}` })
  })

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
      Effect.map(installHooks(context), () => ({
        command: [...base(context), "--session-id", context.conversationId].join(" "),
        env: {},
        initialMessage: context.task
      })),
    resume: (context) => Effect.map(installHooks(context), () => ({ command: [...base(context), "--resume", context.conversationId].join(" "), env: {} })),
    isReadyForInput: (screen) => claudeActivityFromScreen(screen) === "ready",
    startBlocker: claudeStartBlocker,
    readsScreen: true,
    activityFromScreen: claudeActivityFromScreen
  }
}
