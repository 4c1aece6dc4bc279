/**
 * How the `orch` process runs its command and ends. SIGINT, SIGTERM and SIGHUP each interrupt the command, so every
 * finalizer runs (a foreground supervisor stops cleanly: socket, `supervisor.json`, `supervisor.stopped`), and the
 * process then exits 128 + the signal's number (130, 143, 129), as a shell reports a process ended by it. A second
 * signal while that stop runs changes nothing. After SIGHUP the terminal is usually gone: writes to it may fail, and
 * that must not end the stop half-way.
 */
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const
export type StopSignal = typeof STOP_SIGNALS[number]

const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }

/** The exit code of a run: its own on success or failure; 128 + n when signal n interrupted it. */
export const exitCodeAfter = (exit: Exit.Exit<number, unknown>, signal: StopSignal | undefined): number => {
  if (Exit.isSuccess(exit)) return exit.value
  if (Cause.hasInterruptsOnly(exit.cause)) return 128 + SIGNAL_NUMBER[signal ?? "SIGINT"]
  return Runtime.getErrorExitCode(Cause.squash(exit.cause))
}

const ignore = () => {}

/** Runs the command's Effect (which answers its exit code) as the process's main fiber. */
export const runMain = Runtime.makeRunMain(({ fiber }) => {
  let received: StopSignal | undefined
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => {
      if (received !== undefined) return
      received = signal
      if (signal === "SIGHUP") {
        process.stdout.on("error", ignore)
        process.stderr.on("error", ignore)
      }
      fiber.interruptUnsafe(fiber.id)
    }
    process.on(signal, handler)
    return [signal, handler] as const
  })
  fiber.addObserver((exit) => {
    for (const [signal, handler] of handlers) process.removeListener(signal, handler)
    const code = exitCodeAfter(exit as Exit.Exit<number, unknown>, received)
    if (received !== undefined || code !== 0) process.exit(code)
  })
})
