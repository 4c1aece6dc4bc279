/** Runs the `orch` command line to an exit code. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Command } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { VERSION } from "../version.ts"
import { toExitCode } from "./exit.ts"
import { commandLoggerLayer } from "./logging.ts"
import { presenterLayer } from "./presenter.ts"
import { orch } from "./root.ts"
import { WizardNeedsTerminal, wizardWithoutTerminal } from "./wizard.ts"

export const runCli = (argv: ReadonlyArray<string>) =>
  toExitCode(
    wizardWithoutTerminal(argv, process.stdin.isTTY === true && process.stdout.isTTY === true)
      ? Effect.fail(new WizardNeedsTerminal())
      : Command.runWith(orch, { version: VERSION })(argv)
  ).pipe(
    Effect.provide(Layer.mergeAll(NodeServices.layer, presenterLayer, commandLoggerLayer))
  )

export const main = (argv: ReadonlyArray<string>) =>
  NodeRuntime.runMain(runCli(argv), {
    disableErrorReporting: true,
    teardown: (exit, onExit) => (Exit.isSuccess(exit) ? onExit(exit.value as number) : Runtime.defaultTeardown(exit, onExit))
  })
