/**
 * The built `orch` run as a process a test keeps hold of (a foreground `orch start`, a spawn to interrupt): its
 * output as it comes, signals sent to it as a terminal sends them (to its process group: Ctrl-C is SIGINT to the
 * group), and how it ended. It is killed with the test's scope if still running.
 */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { ORCH_BIN } from "./cli.ts"

export interface Foreground {
  readonly pid: number
  readonly stdout: () => string
  readonly stderr: () => string
  /** Sends `signal` to its process group, as a terminal does (Ctrl-C, the window closed). */
  readonly signal: (signal: NodeJS.Signals) => void
  /** How it ended: its exit code (null when a signal killed it) and that signal. */
  readonly exited: Effect.Effect<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

export const foreground = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env: Record<string, string> }) =>
  Effect.gen(function*() {
    const child = spawn(process.execPath, [ORCH_BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      // A process group of its own, as a shell gives a foreground job.
      detached: true
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("close", (code, signal) => resolve({ code, signal }))
    )
    const toGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {
        // the group is gone
      }
    }
    yield* Effect.addFinalizer(() => Effect.sync(() => child.exitCode === null && child.signalCode === null && toGroup("SIGKILL")))
    return {
      pid: child.pid!,
      stdout: () => stdout,
      stderr: () => stderr,
      signal: toGroup,
      exited: Effect.promise(() => ended)
    } satisfies Foreground
  })
