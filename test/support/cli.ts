/** Runs the built `orch` command (dist/orch.mjs) as a real process. */
import { spawnSync } from "node:child_process"
import { resolve } from "node:path"

export const ORCH_BIN = resolve("dist/orch.mjs")

export interface OrchRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export const runOrch = (args: ReadonlyArray<string>, options: { cwd?: string; env?: Record<string, string> } = {}): OrchRun => {
  const result = spawnSync(process.execPath, [ORCH_BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr }
}
