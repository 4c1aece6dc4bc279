/**
 * Agent `command`: any command line (`agentConfig.command`) run in the workspace. It reads its task from
 * `$ORCH_PROMPT_FILE` and gets later messages on its terminal input. Used by the demo and the tests, and to
 * run any agent CLI orch has no plugin for.
 */
import * as Effect from "effect/Effect"
import { AgentError, type AgentShape } from "./Agent.ts"

export const makeCommandAgent = (agentConfig: Readonly<Record<string, unknown>>): AgentShape => {
  const launch = Effect.fnUntraced(function*() {
    const command = agentConfig.command
    if (typeof command !== "string" || command.trim() === "") {
      return yield* new AgentError({ plugin: "command", reason: "set agentConfig.command to the command line to run" })
    }
    return { command, env: {} }
  })
  return {
    name: "command",
    ...(typeof agentConfig.command === "string" ? { commandLine: agentConfig.command } : {}),
    launch,
    resume: launch,
    isReadyForInput: () => true,
    readsScreen: false,
    activityFromScreen: () => undefined
  }
}
