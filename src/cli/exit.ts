/**
 * How a finished command becomes an exit code and, on failure, one clear message on stderr.
 * 0 success, 1 the operation failed, 2 usage or configuration error. Defects print one line and, with
 * ORCH_DEBUG=1, the full cause.
 */
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import { CliError } from "effect/cli"

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

const exitCodeOf = (error: unknown): number => {
  if (CliError.isCliError(error)) return error._tag === "ShowHelp" && error.errors.length === 0 ? EXIT_OK : EXIT_USAGE
  const code = (error as { readonly [Runtime.errorExitCode]?: unknown } | null)?.[Runtime.errorExitCode]
  return typeof code === "number" ? code : EXIT_FAILED
}

const messageOf = (error: unknown): string =>
  error instanceof Error && error.message !== "" ? error.message : String(error)

/** Runs a command to its exit code: failures are reported here and never escape as stack traces. */
export const toExitCode = <R>(program: Effect.Effect<void, unknown, R>): Effect.Effect<number, never, R> =>
  program.pipe(
    Effect.as(EXIT_OK),
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const debug = process.env.ORCH_DEBUG === "1"
      const failure = cause.reasons.find(Cause.isFailReason)
      if (failure !== undefined) {
        const error = failure.error
        // The CLI already printed its own usage errors (see presenter.ts).
        const report = CliError.isCliError(error) ? Effect.void : Console.error(`orch: ${messageOf(error)}`)
        return report.pipe(
          Effect.andThen(debug ? Console.error(Cause.pretty(cause)) : Effect.void),
          Effect.as(exitCodeOf(error))
        )
      }
      const defect = Cause.squash(cause)
      return Console.error(`orch: unexpected error: ${messageOf(defect)}${debug ? "" : " (set ORCH_DEBUG=1 for details)"}`).pipe(
        Effect.andThen(debug ? Console.error(Cause.pretty(cause)) : Effect.void),
        Effect.as(EXIT_FAILED)
      )
    })
  )
