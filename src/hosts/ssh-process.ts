/**
 * Running `ssh` to completion (exit code, stdout, stderr), with one difference from running any other program:
 * the run that may become a host's master leaves its process group alone once it exits well. ssh starts a
 * ProxyCommand (or the `ssh -W` of a ProxyJump) in its own process group, and a master made with ControlPersist
 * goes on using it after the ssh that made it has exited; killing that group, as the spawner does after a child
 * it owns, would cut every master that reaches its host through a proxy. A run that fails or is interrupted
 * (a timeout) still has its whole group killed.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Stream from "effect/Stream"
import type { ExecResult } from "../process/exec.ts"

const text = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** `ssh args`, `input` on its stdin; `keepGroup` for a run that may leave a master behind. */
export const runSsh = Effect.fnUntraced(function*(args: ReadonlyArray<string>, input: string | undefined, keepGroup: boolean) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  return yield* Effect.scoped(Effect.gen(function*() {
    const options = input !== undefined ? { stdin: Stream.make(new TextEncoder().encode(input)) } : {}
    const handle = yield* spawner.spawn(ChildProcess.make("ssh", [...args], options))
    if (keepGroup) {
      // Unreferenced, the spawner leaves the group alone after a clean exit; anything else ends it here.
      yield* handle.unref
      // A kill that fails finds the group already gone; the failure that ends the scope is the one told.
      yield* Effect.addFinalizer((exit) => Exit.isSuccess(exit) ? Effect.void : handle.kill({ killSignal: "SIGKILL" }).pipe(Effect.ignore))
    }
    const [stdout, stderr, exitCode] = yield* Effect.all([text(handle.stdout), text(handle.stderr), handle.exitCode], { concurrency: "unbounded" })
    return { exitCode: Number(exitCode), stdout, stderr } satisfies ExecResult
  })).pipe(
    Effect.mapError((error) =>
      error._tag === "PlatformError" && error.reason._tag === "NotFound" ? "ssh is not installed (not found on PATH)" : `ssh could not run: ${error.message}`
    )
  )
})
