/** git for the workspace plugins: every call with a timeout, never prompting, with errors that say what failed. */
import * as Effect from "effect/Effect"
import { ChildProcessSpawner } from "effect/process"
import { exec, type ExecResult } from "../../process/exec.ts"
import { WorkspaceError } from "./Workspace.ts"

export interface GitOptions {
  readonly env?: Readonly<Record<string, string>>
  readonly timeout?: "10 seconds" | "60 seconds" | "10 minutes"
}

export interface Git {
  /** Runs git in `cwd`; a non-zero exit is a value. */
  readonly run: (cwd: string, args: ReadonlyArray<string>, options?: GitOptions) => Effect.Effect<ExecResult, WorkspaceError>
  /** Runs git in `cwd` and returns its trimmed stdout; a non-zero exit fails with git's own message. */
  readonly ok: (cwd: string, args: ReadonlyArray<string>, options?: GitOptions) => Effect.Effect<string, WorkspaceError>
  /** Whether `ref` names a commit. */
  readonly exists: (cwd: string, ref: string) => Effect.Effect<boolean, WorkspaceError>
}

export const makeGit = Effect.fnUntraced(function*(plugin: string) {
  const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
  const run = (cwd: string, args: ReadonlyArray<string>, options: GitOptions = {}) =>
    exec("git", ["-C", cwd, ...args], {
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", ...options.env },
      timeout: options.timeout ?? "60 seconds"
    }).pipe(
      Effect.mapError((error) => new WorkspaceError({ plugin, operation: `git ${args[0]}`, reason: error.reason })),
      Effect.provide(context)
    )
  const ok = (cwd: string, args: ReadonlyArray<string>, options?: GitOptions) =>
    run(cwd, args, options).pipe(
      Effect.flatMap((result) =>
        result.exitCode === 0
          ? Effect.succeed(result.stdout.trim())
          : Effect.fail(
            new WorkspaceError({
              plugin,
              operation: `git ${args[0]}`,
              reason: (result.stderr.trim() || `exit ${result.exitCode}`).split("\n").slice(-3).join(" ")
            })
          )
      )
    )
  const exists = (cwd: string, ref: string) =>
    run(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).pipe(Effect.map((result) => result.exitCode === 0))
  return { run, ok, exists } satisfies Git
})
