/**
 * `orch status` and `orch status --json` on their own: bin/orch.ts runs this bundle (dist/status.cjs) instead of the
 * command tree when the command line is one of those two (plain-status.ts), so the command people run most loads only what it prints
 * (issue 22). Anything else (`--help`, a misspelt flag) goes to the tree, which says what it always says.
 */
import * as Effect from "effect/Effect"
import { toExitCode } from "./exit.ts"
import { commandLoggerLayer } from "./logging.ts"
import { runMain } from "./run-main.ts"
import { runStatus } from "./status-run.ts"

export const main = (argv: ReadonlyArray<string>) =>
  runMain(toExitCode(runStatus({ json: argv[1] === "--json" })).pipe(Effect.provide(commandLoggerLayer)), { disableErrorReporting: true })
