/** Runs the `orch` command line to an exit code. */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Command } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { VERSION } from "../version.ts"
import { toExitCode } from "./exit.ts"
import { commandLoggerLayer } from "./logging.ts"
import { presenterLayer } from "./presenter.ts"
import { orch } from "./root.ts"
import { runMain } from "./run-main.ts"
import { WizardNeedsTerminal, wizardWithoutTerminal } from "./wizard.ts"

export const runCli = (argv: ReadonlyArray<string>) =>
  toExitCode(
    wizardWithoutTerminal(argv, process.stdin.isTTY === true && process.stdout.isTTY === true)
      ? Effect.fail(new WizardNeedsTerminal())
      : Command.runWith(orch, { version: VERSION })(argv)
  ).pipe(
    Effect.provide(Layer.mergeAll(NodeServices.layer, presenterLayer, commandLoggerLayer))
  )

export const main = (argv: ReadonlyArray<string>) => runMain(runCli(argv), { disableErrorReporting: true })
