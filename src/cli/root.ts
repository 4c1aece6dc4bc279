/** The `orch` command tree. */
import { Command } from "effect/cli"
import { config } from "./config.ts"
import { init } from "./init.ts"

export const orch = Command.make("orch").pipe(
  Command.withDescription("Launch and supervise AI coding-agent sessions, one per issue"),
  Command.withSubcommands([init, config])
)
