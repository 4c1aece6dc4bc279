/**
 * A memory control group of its own for a test (cgroup v1 or v2), below the one the test runs in: a container's
 * memory limit, made small. Needs root (or a delegated group); `memoryGroupUnavailable` says why not when it cannot.
 */
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { OrchRun } from "./cli.ts"
import { ORCH_BIN } from "./cli.ts"

const own = (() => {
  try {
    return readFileSync("/proc/self/cgroup", "utf8")
  } catch {
    return ""
  }
})()
const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(own)?.[1]
const parent = v1 !== undefined ? join("/sys/fs/cgroup/memory", v1) : join("/sys/fs/cgroup", /^0::(.*)$/m.exec(own)?.[1] ?? "/")
const files = v1 !== undefined ? { limit: "memory.limit_in_bytes", usage: "memory.usage_in_bytes" } : { limit: "memory.max", usage: "memory.current" }

/** Why no memory group can be made here, or undefined when one can. */
export const memoryGroupUnavailable: string | undefined = (() => {
  const probe = join(parent, `orch-test-probe-${process.pid}`)
  try {
    mkdirSync(probe)
    try {
      writeFileSync(join(probe, files.limit), String(1024 ** 3))
    } finally {
      rmdirSync(probe)
    }
    return undefined
  } catch (error) {
    return `no writable memory control group under ${parent}: ${(error as Error).message}`
  }
})()

/** A new group (removed when the scope closes, once its processes are gone), and orch run inside it. */
export const memoryGroup = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = join(parent, `orch-test-${process.pid}-${Date.now()}`)
    mkdirSync(dir)
    return dir
  }),
  (dir) =>
    Effect.promise(async () => {
      for (let i = 0; i < 100; i++) {
        try {
          rmdirSync(dir)
          return
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    })
).pipe(Effect.map((dir) => ({
  dir,
  usage: () => Number(readFileSync(join(dir, files.usage), "utf8").trim()),
  setLimit: (bytes: number) => writeFileSync(join(dir, files.limit), String(Math.round(bytes))),
  /**
   * orch as a process of the group (the built CLI, or `options.orch`: an installed `orch` found on the env's PATH):
   * what it starts (a supervisor, tmux's server, agents) is in the group too.
   */
  orch: (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env: Record<string, string>; readonly installed?: boolean }) =>
    Effect.callback<OrchRun>((resume) => {
      const command = options.installed === true ? ["orch"] : [process.execPath, ORCH_BIN]
      const child = execFile(
        "sh",
        ["-c", `echo $$ > '${dir}/cgroup.procs' && exec "$0" "$@"`, ...command, ...args],
        { cwd: options.cwd, env: { PATH: process.env.PATH ?? "", ...options.env }, encoding: "utf8", timeout: 60_000 },
        (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }))
      )
      return Effect.sync(() => child.kill())
    })
})))
