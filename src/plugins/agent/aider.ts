/** Agent `aider`. No hooks: its activity is read off the screen. */
import * as Effect from "effect/Effect"
import type { Activity } from "../../domain/session.ts"
import { type AgentShape, programSettings, shellQuote } from "./Agent.ts"

/** Its `agentConfig` keys beyond the common ones. */
export const aiderSettings = programSettings("aider")

export const makeAiderAgent = (agentConfig: Readonly<Record<string, unknown>>): AgentShape => {
  const binary = typeof agentConfig.command === "string" && agentConfig.command !== "" ? agentConfig.command : "aider"
  const flags = [
    ...(agentConfig.permissions === "skip" ? ["--yes-always"] : []),
    ...(typeof agentConfig.model === "string" ? ["--model", shellQuote(agentConfig.model)] : [])
  ]
  const launch = (context: { readonly systemPromptFile: string; readonly task: string }) =>
    Effect.succeed({
      command: [binary, ...flags, "--read", shellQuote(context.systemPromptFile)].join(" "),
      env: {},
      initialMessage: context.task
    })
  return {
    name: "aider",
    commandLine: binary,
    launch,
    resume: (context) => Effect.map(launch(context), ({ command, env }) => ({ command, env })),
    isReadyForInput: (screen) => /^(\w+ )?>\s*$/m.test(screen),
    readsScreen: true,
    activityFromScreen: (screen): Activity | undefined => {
      if (/\(Y\)es\/\(N\)o/i.test(screen)) return "waiting_input"
      if (/^(\w+ )?>\s*$/m.test(screen.trimEnd().split("\n").slice(-2).join("\n"))) return "ready"
      return undefined
    }
  }
}
