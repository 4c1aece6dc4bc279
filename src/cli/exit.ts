/**
 * How a finished command becomes an exit code and, on failure, one clear message on stderr.
 * 0 success, 1 the operation failed, 2 usage or configuration error. Defects print one line and, with
 * ORCH_DEBUG=1, the full cause.
 */
import * as Cause from "effect/Cause"
import { CliError } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

const exitCodeOf = (error: unknown): number => {
  if (CliError.isCliError(error)) return error._tag === "ShowHelp" && error.errors.length === 0 ? EXIT_OK : EXIT_USAGE
  const code = (error as { readonly [Runtime.errorExitCode]?: unknown } | null)?.[Runtime.errorExitCode]
  return typeof code === "number" ? code : EXIT_FAILED
}

const messageOf = (error: unknown): string => error instanceof Error && error.message !== "" ? error.message : String(error)

export interface FailureReport {
  /** What to print after `orch: ` (undefined: the CLI already printed its own usage error, see presenter.ts). */
  readonly message: string | undefined
  readonly exitCode: number
}

/** What a failed command tells its user, and its exit code; undefined when it was only interrupted. */
export const describeFailure = (cause: Cause.Cause<unknown>): FailureReport | undefined => {
  if (Cause.hasInterruptsOnly(cause)) return undefined
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) {
    return { message: CliError.isCliError(failure.error) ? undefined : messageOf(failure.error), exitCode: exitCodeOf(failure.error) }
  }
  const debug = process.env.ORCH_DEBUG === "1"
  return { message: `unexpected error: ${messageOf(Cause.squash(cause))}${debug ? "" : " (set ORCH_DEBUG=1 for details)"}`, exitCode: EXIT_FAILED }
}

/** Runs a command to its exit code: failures are reported here and never escape as stack traces. */
export const toExitCode = <R>(program: Effect.Effect<void, unknown, R>): Effect.Effect<number, never, R> =>
  program.pipe(
    Effect.as(EXIT_OK),
    Effect.catchCause((cause) => {
      const report = describeFailure(cause)
      if (report === undefined) return Effect.failCause(cause as Cause.Cause<never>)
      return (report.message === undefined ? Effect.void : Console.error(`orch: ${report.message}`)).pipe(
        Effect.andThen(process.env.ORCH_DEBUG === "1" ? Console.error(Cause.pretty(cause)) : Effect.void),
        Effect.as(report.exitCode)
      )
    })
  )
