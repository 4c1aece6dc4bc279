/** Agent `codex`: OpenAI's Codex CLI. No hooks: its activity is read off the screen. */
import * as Effect from "effect/Effect"
import type { Activity } from "../../domain/session.ts"
import { shellQuote, type AgentShape } from "./Agent.ts"

const permissionFlags = (permissions: unknown): Array<string> =>
  permissions === "skip" ? ["--dangerously-bypass-approvals-and-sandbox"] : permissions === "auto-edit" ? ["--full-auto"] : []

/**
 * Codex 0.169.0's screens (test/fixtures/agents/codex-0.169.0/): the input box `› …` and the footer
 * "? for shortcuts" stay on screen while it works; a working turn shows "esc to interrupt". Its approval
 * prompts were not recorded (docs/agents.md), so that pattern is unverified.
 */
export const codexActivityFromScreen = (screen: string): Activity | undefined => {
  const tail = screen.trimEnd().split("\n").slice(-15).join("\n")
  if (/Allow command\?|\[y\/N\]|Sign in with ChatGPT/i.test(tail)) return "waiting_input"
  if (/esc to interrupt/i.test(tail)) return "active"
  if (/^\s*› /m.test(tail) && /\? for shortcuts/i.test(tail)) return "ready"
  return undefined
}

export const makeCodexAgent = (agentConfig: Readonly<Record<string, unknown>>): AgentShape => {
  const binary = typeof agentConfig.command === "string" && agentConfig.command !== "" ? agentConfig.command : "codex"
  const flags = [
    ...permissionFlags(agentConfig.permissions),
    ...(typeof agentConfig.model === "string" ? ["-m", shellQuote(agentConfig.model)] : [])
  ]
  return {
    name: "codex",
    launch: (context) =>
      Effect.succeed({
        command: [binary, ...flags, "-c", shellQuote(`experimental_instructions_file=${context.systemPromptFile}`)].join(" "),
        env: {},
        initialMessage: context.task
      }),
    resume: () => Effect.succeed({ command: [binary, "resume", "--last", ...flags].join(" "), env: {} }),
    isReadyForInput: (screen) => codexActivityFromScreen(screen) === "ready",
    startBlocker: (screen) =>
      /Sign in with ChatGPT/i.test(screen) ? "Codex asks how to sign in: run `codex login --with-api-key` or configure a model provider first" : undefined,
    readsScreen: true,
    activityFromScreen: codexActivityFromScreen
  }
}
