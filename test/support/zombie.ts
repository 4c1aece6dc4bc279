/** Zombies for tests: processes that exited but whose parent never reaps them (as under a container's PID 1 that does not). */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { eventually } from "./eventually.ts"

/** `/proc/<pid>/stat`'s state letter ("Z" for a zombie), or undefined when the process is gone. */
export const procState = (pid: number): string | undefined => {
  try {
    return /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1]
  } catch {
    return undefined
  }
}

/**
 * Runs `command` (a shell command line) in the background under a parent that never reaps it: `sh` starts it, prints
 * its pid, then `exec`s into `sleep`. Once `command` exits it stays a zombie until the scope closes (the parent is killed).
 */
export const underNonReapingParent = (command: string, env: Record<string, string> = {}, cwd?: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly pid: number; readonly parent: number }>((resume) => {
      const parent = spawn("sh", ["-c", `${command} & echo $!; exec sleep 600`], {
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, ...env },
        ...(cwd !== undefined ? { cwd } : {})
      })
      parent.stdout.once("data", (chunk: Buffer) => resume(Effect.succeed({ pid: Number(chunk.toString().trim()), parent: parent.pid! })))
    }),
    ({ parent }) => Effect.sync(() => process.kill(parent, "SIGKILL"))
  )

/**
 * A zombie: a shell that exits under a parent that never reaps it. It exits only once its parent has become
 * `sleep` (the parent shell could otherwise reap it just before its `exec`).
 */
export const zombie = underNonReapingParent(`sh -c 'until grep -q "^sleep" /proc/$PPID/comm; do sleep 0.01; done'`).pipe(
  Effect.tap(({ pid }) => eventually(`process ${pid} to be a zombie`, () => procState(pid) === "Z"))
)
