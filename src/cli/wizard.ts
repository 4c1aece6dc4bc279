/**
 * `--wizard` (a global flag of effect/cli) asks for each argument with prompts that redraw a terminal: where standard
 * input or output is not one, it would print escape codes and wait on input nobody types. It is refused there, in one
 * sentence, before the command tree runs.
 */
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"

export class WizardNeedsTerminal extends Schema.TaggedError<WizardNeedsTerminal>()("WizardNeedsTerminal", {}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return "--wizard asks for each argument in a terminal, and this is not one; give them on the command line (`orch <command> --help` lists them)"
  }
}

/** Whether `argv` asks for the wizard where it cannot run. Only arguments before `--` are flags. Pure. */
export const wizardWithoutTerminal = (argv: ReadonlyArray<string>, terminal: boolean): boolean => {
  const end = argv.indexOf("--")
  return !terminal && (end < 0 ? argv : argv.slice(0, end)).includes("--wizard")
}
