/**
 * Agent `codex`: OpenAI's Codex CLI (proven on 0.169.0, docs/agents.md). No hooks: its activity is read off the
 * screen. The system prompt goes in as `developer_instructions`; the task is typed once the TUI is ready.
 */
import * as Effect from "effect/Effect"
import { dirname, join } from "node:path"
import { limitKindOf } from "../../domain/rate-limit.ts"
import type { Activity } from "../../domain/session.ts"
import type { FileEdit } from "../workspace/file-edits.ts"
import { type AgentContext, type AgentShape, programSettings, type ScreenLimit, shellQuote } from "./Agent.ts"

const PLUGIN = "codex"
/** The Codex CLI version this plugin's flags and screens were proven with (docs/agents.md); `orch doctor` compares. */
export const VERIFIED_CODEX_VERSION = "0.169.0"

/**
 * Codex's own presets: `skip` is "Full Access", `auto-edit` writes in the workspace and asks for anything
 * else, `default` is read-only and asks before anything that changes things. (0.169.0 has no `--full-auto`.)
 */
const permissionFlags = (permissions: unknown): Array<string> =>
  permissions === "skip"
    ? ["--dangerously-bypass-approvals-and-sandbox"]
    : permissions === "auto-edit"
    ? ["--sandbox", "workspace-write", "--ask-for-approval", "on-request"]
    : ["--sandbox", "read-only", "--ask-for-approval", "on-request"]

/**
 * Codex 0.169.0's screens (test/fixtures/agents/codex-0.169.0/): the input box `› …` and the footer
 * "? for shortcuts" stay on screen while it works; a working turn shows "esc to interrupt"; a command
 * approval ends in "Press enter to confirm or esc to cancel" and hides the footer. Questions asked before
 * the input shows (sign-in, trust of the folder) keep it from ever getting there.
 */
export const codexStartBlocker = (screen: string): string | undefined =>
  /Sign in with ChatGPT/i.test(screen)
    ? "Codex asks how to sign in: run `codex login --with-api-key` or configure a model provider first"
    : /Trust this folder\?/i.test(screen)
    ? "Codex asks whether to trust this folder: run `codex` once in the project's directory and trust it (a trusted repository covers its worktrees)"
    : undefined

/**
 * A provider's refusal as Codex words it: a limit ("… last status: 429 Too Many Requests"), or its capacity ("We’re
 * currently experiencing high demand", which it also says of a 500; "Selected model is at capacity", a 503).
 */
const REFUSED = /\b429\b|rate limit|usage limit|high demand|at capacity|overloaded/i
/** Its retry: "Server is busy, reconnecting 3/5 (2s • esc to interrupt)" (a 429), "Reconnecting... 1/5 (3s • …)" (anything else). */
const RECONNECTING = /reconnecting(?:\.\.\.)? \d+\/\d+/i

/** The retry line and the reason Codex shows under it ("└ Exceeded retry limit, last status: 429 Too Many Requests"). */
const retryShown = (tail: string): { readonly line: string; readonly reason?: string } | undefined => {
  const lines = tail.split("\n")
  const at = lines.findIndex((line) => RECONNECTING.test(line))
  if (at < 0) return undefined
  const reason = /^\s*└\s*(.+?)\s*$/.exec(lines[at + 1] ?? "")?.[1]
  return { line: lines[at]!.replace(/^[\s•◦]+/u, "").trim(), ...(reason !== undefined ? { reason } : {}) }
}

/** The turn it gave up on: "■ exceeded retry limit, last status: 429 …" right above its input box (the last `›` line). */
const gaveUpOn = (screen: string): string | undefined => {
  const shown = screen.split("\n").filter((line) => line.trim() !== "")
  const input = shown.findLastIndex((line) => /^\s*› /.test(line))
  const above = input > 0 ? shown[input - 1]! : ""
  return /^\s*■/.test(above) && REFUSED.test(above) ? above.replace(/^\s*■\s*/u, "").trim() : undefined
}

const tailOf = (screen: string) => screen.trimEnd().split("\n").slice(-15).join("\n")

export const codexActivityFromScreen = (screen: string): Activity | undefined => {
  const tail = tailOf(screen)
  if (/Would you like to run the following command\?|Press enter to confirm or esc to cancel/i.test(tail) || codexStartBlocker(tail) !== undefined) {
    return "waiting_input"
  }
  const retry = retryShown(tail)
  if (retry !== undefined) return REFUSED.test(retry.reason ?? "") ? "rate_limited" : "retrying"
  if (/esc to interrupt/i.test(tail)) return "active"
  if (gaveUpOn(screen) !== undefined) return "rate_limited"
  if (/^\s*› /m.test(tail) && /\? for shortcuts/i.test(tail)) return "ready"
  return undefined
}

/**
 * What a screen read as `rate_limited` shows of the limit: the reason under its retry (the time it shows there is how
 * long the turn has run, not a wait: Codex waits what the provider's `retry-after` says, even an hour, without showing
 * it), or the error of the turn it gave up on.
 */
export const codexLimitFromScreen = (screen: string): ScreenLimit | undefined => {
  const retry = retryShown(tailOf(screen))
  const line = retry !== undefined ? retry.reason ?? retry.line : gaveUpOn(screen)
  if (line === undefined) return undefined
  const kind = limitKindOf(line)
  return { line, retrying: retry !== undefined, ...(kind !== undefined ? { kind } : {}) }
}

/**
 * `-c key=value` parses the value as TOML and takes it literally only when that fails, so the prompt is
 * written as a TOML string (a JSON string is one), next to the system prompt, and read back by the shell when
 * Codex starts. The file is an edit the spawn makes where the session runs.
 */
export const instructionsFile = (context: Pick<AgentContext, "systemPromptFile">) => join(dirname(context.systemPromptFile), "codex-instructions.toml")

export const instructionEdits = (context: Pick<AgentContext, "systemPromptFile">): ReadonlyArray<FileEdit> => [{
  _tag: "Update",
  path: instructionsFile(context),
  from: context.systemPromptFile,
  update: (system) => JSON.stringify(system ?? "")
}]

const instructionsFlag = (context: AgentContext) => `-c "developer_instructions=$(cat ${shellQuote(instructionsFile(context))})"`

/** Its `agentConfig` keys beyond the common ones. */
export const codexSettings = programSettings("codex")

export const makeCodexAgent = (agentConfig: Readonly<Record<string, unknown>>): AgentShape => {
  const binary = typeof agentConfig.command === "string" && agentConfig.command !== "" ? agentConfig.command : "codex"
  // --no-daemon: by default the TUI talks to a shared background `codex app-server` that outlives it.
  const flags = [
    "--no-daemon",
    ...permissionFlags(agentConfig.permissions),
    ...(typeof agentConfig.model === "string" ? ["-m", shellQuote(agentConfig.model)] : [])
  ]
  return {
    name: PLUGIN,
    commandLine: binary,
    launch: (context) =>
      Effect.succeed({
        command: [binary, ...flags, instructionsFlag(context)].join(" "),
        env: {},
        initialMessage: context.task,
        files: instructionEdits(context)
      }),
    // `--last` is the newest conversation started in this directory: each session has its own worktree.
    resume: (context) =>
      Effect.succeed({ command: [binary, "resume", "--last", ...flags, instructionsFlag(context)].join(" "), env: {}, files: instructionEdits(context) }),
    isReadyForInput: (screen) => codexActivityFromScreen(screen) === "ready",
    startBlocker: codexStartBlocker,
    readsScreen: true,
    activityFromScreen: codexActivityFromScreen,
    limitFromScreen: codexLimitFromScreen
  }
}
