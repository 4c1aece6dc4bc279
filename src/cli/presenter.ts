/** Usage errors as short lines on stderr with a pointer to the help, instead of the whole help text. */
import { CliOutput } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

export const presenterLayer = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.forEach(event.errors, (error) => Console.error(`orch: ${error.message}`), { discard: true }).pipe(
        Effect.andThen(Console.error(`Run \`${event.commandPath.join(" ")} --help\` for usage.`))
      )
      : CliOutput.defaultPresenter.present(event)
})
