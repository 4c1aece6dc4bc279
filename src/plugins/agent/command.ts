/**
 * Agent `command`: any command line (`agentConfig.command`) run in the workspace. It reads its task from
 * `$ORCH_PROMPT_FILE` and gets later messages on its terminal input. Used by the demo and the tests, and to
 * run any agent CLI orch has no plugin for.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AgentError, type AgentShape } from "./Agent.ts"

const COMMAND_NEEDED = "the command line the agent runs (agent `command` runs any command line, so it needs one)"

/** Its `agentConfig`: `command` is required. */
export const commandAgentSettings = Schema.Struct({
  command: Schema.String.check(Schema.isPattern(/\S/u, { message: `Expected ${COMMAND_NEEDED}` })).pipe(
    Schema.annotateKey({ messageMissingKey: `Required: ${COMMAND_NEEDED}` })
  )
})

export const makeCommandAgent = (agentConfig: Readonly<Record<string, unknown>>): AgentShape => {
  const launch = Effect.fnUntraced(function*() {
    const command = agentConfig.command
    if (typeof command !== "string" || command.trim() === "") {
      return yield* new AgentError({ plugin: "command", reason: `set agentConfig.command to ${COMMAND_NEEDED}` })
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
