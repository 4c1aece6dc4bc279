/**
 * `orch status` and `orch queue ls`, each plain or `--json`, on their own: bin/orch.ts runs this bundle
 * (dist/views.cjs) instead of the command tree for those command lines (plain-views.ts), so the commands people run
 * most to look load only what they print (issue 22). Anything else (`--help`, a misspelt flag) goes to the tree,
 * which says what it always says.
 */
import * as Effect from "effect/Effect"
import { toExitCode } from "./exit.ts"
import { commandLoggerLayer } from "./logging.ts"
import { plainView } from "./plain-views.ts"
import { runQueueLs } from "./queue-ls.ts"
import { runMain } from "./run-main.ts"
import { runStatus } from "./status-run.ts"

export const main = (argv: ReadonlyArray<string>) => {
  const json = argv.at(-1) === "--json"
  const view = plainView(argv) === "queue ls" ? runQueueLs({ json }) : runStatus({ json })
  return runMain(toExitCode(view).pipe(Effect.provide(commandLoggerLayer)), { disableErrorReporting: true })
}
