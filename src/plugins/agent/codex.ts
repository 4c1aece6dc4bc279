/** Agent `codex`: OpenAI's Codex CLI. No hooks: its activity is read off the screen. */
import * as Effect from "effect/Effect"
import type { Activity } from "../../domain/session.ts"
import { shellQuote, type AgentShape } from "./Agent.ts"

const permissionFlags = (permissions: unknown): Array<string> =>
  permissions === "skip" ? ["--dangerously-bypass-approvals-and-sandbox"] : permissions === "auto-edit" ? ["--full-auto"] : []

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
    isReadyForInput: (screen) => /▌|context left|send\s+⏎|Ctrl\+J newline/i.test(screen) && !/esc to interrupt/i.test(screen),
    readsScreen: true,
    activityFromScreen: (screen): Activity | undefined => {
      if (/Allow command\?|approve|\[y\/N\]/i.test(screen)) return "waiting_input"
      if (/esc to interrupt|Working/i.test(screen)) return "active"
      if (/▌|context left/i.test(screen)) return "ready"
      return undefined
    }
  }
}
