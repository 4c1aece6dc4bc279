/**
 * Running an external command (git, tmux, …) to completion: exit code, stdout and stderr, with a timeout.
 * A non-zero exit is a value, not an error; a command that cannot start or times out is an ExecError (a program
 * that is not there says so, in a few words).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { existsSync } from "node:fs"

export class ExecError extends Schema.TaggedError<ExecError>()("ExecError", {
  command: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.command}: ${this.reason}`
  }
}

export interface ExecResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

export interface ExecOptions {
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly stdin?: string
  readonly timeout?: Duration.Input
}

const collect = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

export const exec = Effect.fnUntraced(function*(file: string, args: ReadonlyArray<string>, options: ExecOptions = {}) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const command = [file, ...args].join(" ")
  const run = Effect.scoped(Effect.gen(function*() {
    const handle = yield* spawner.spawn(ChildProcess.make(file, [...args], {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env !== undefined ? { env: options.env as Record<string, string>, extendEnv: false } : {}),
      ...(options.stdin !== undefined ? { stdin: Stream.make(new TextEncoder().encode(options.stdin)) } : {})
    }))
    const [stdout, stderr, exitCode] = yield* Effect.all([collect(handle.stdout), collect(handle.stderr), handle.exitCode], {
      concurrency: "unbounded"
    })
    return { exitCode: Number(exitCode), stdout, stderr } satisfies ExecResult
  }))
  const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(30))
  return yield* run.pipe(
    Effect.mapError((error) =>
      // The program is not there: said once, without the whole command line.
      error._tag === "PlatformError" && error.reason._tag === "NotFound"
        ? options.cwd !== undefined && !existsSync(options.cwd)
          ? new ExecError({ command: file, reason: `cannot run it in ${options.cwd}: that directory does not exist` })
          : new ExecError({ command: file, reason: `${file} is not installed (not found${file.includes("/") ? "" : " on PATH"})` })
        : new ExecError({ command, reason: error.message })
    ),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(new ExecError({ command, reason: `timed out after ${Duration.format(timeout)}` }))
    })
  )
})
