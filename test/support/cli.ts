/** Runs the built `orch` command (dist/orch.mjs) as a real process. */
import * as Effect from "effect/Effect"
import { execFile, spawnSync } from "node:child_process"
import { resolve } from "node:path"

export const ORCH_BIN = resolve("dist/orch.mjs")

export interface OrchRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface OrchRunOptions {
  readonly cwd?: string
  readonly env?: Record<string, string>
}

const processEnv = (env: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env })

/** Blocking; only for tests that serve nothing from their own process. */
export const runOrch = (args: ReadonlyArray<string>, options: OrchRunOptions = {}): OrchRun => {
  const result = spawnSync(process.execPath, [ORCH_BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: processEnv(options.env),
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr }
}

/** Non-blocking: the test process keeps serving (tracker servers, webhooks) while orch runs. */
export const runOrchAsync = (args: ReadonlyArray<string>, options: OrchRunOptions = {}): Effect.Effect<OrchRun> =>
  Effect.callback<OrchRun>((resume) => {
    const child = execFile(process.execPath, [ORCH_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: processEnv(options.env),
      encoding: "utf8",
      timeout: 120_000
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
      resume(Effect.succeed({ code, stdout, stderr }))
    })
    return Effect.sync(() => child.kill())
  })
