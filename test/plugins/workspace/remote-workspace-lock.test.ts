/**
 * The host's lock on a project's clone (src/plugins/workspace/remote-workspace.ts): two scripts holding it never overlap, with
 * flock and with the directory fallback of hosts without it; a holder that died leaves nothing held.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ProjectConfig } from "../../../src/config/schema.ts"
import { lockLines } from "../../../src/plugins/workspace/remote-workspace.ts"
import { tempDir } from "../../support/host.ts"

const project = { id: "app" } as ProjectConfig

/** A PATH with the tools the script uses, and flock only when asked. */
const toolsDir = (dir: string, withFlock: boolean) => {
  const bin = join(dir, withFlock ? "bin-flock" : "bin")
  mkdirSync(bin)
  for (const tool of ["mkdir", "rm", "cat", "sleep", "echo", ...(withFlock ? ["flock"] : [])]) symlinkSync(`/usr/bin/${tool}`, join(bin, tool))
  return bin
}

/** Takes the lock, writes "<name> in", waits, writes "<name> out", gives it back. */
const holder = (dir: string, bin: string, name: string) =>
  Effect.callback<number>((resume) => {
    const { take, give } = lockLines(project)
    const script = `d=${dir}\n${take}echo "${name} in" >> ${dir}/trace; sleep 0.3; echo "${name} out" >> ${dir}/trace\n${give}`
    const child = spawn("/bin/sh", ["-c", script], { env: { PATH: bin } })
    child.on("exit", (code) => resume(Effect.succeed(code ?? -1)))
  })

describe("the host's lock on a project's clone", () => {
  for (const withFlock of [true, false]) {
    it.live(`two holders take turns (${withFlock ? "flock" : "a directory, no flock"})`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("orch-lock-")
        const bin = toolsDir(dir, withFlock)
        const codes = yield* Effect.all([holder(dir, bin, "a"), holder(dir, bin, "b")], { concurrency: "unbounded" })
        assert.deepStrictEqual(codes, [0, 0])
        const trace = readFileSync(join(dir, "trace"), "utf8").trim().split("\n")
        assert.strictEqual(trace.length, 4)
        // Each "in" is followed by its own "out": nobody entered while the other held it.
        assert.strictEqual(trace[0]!.split(" ")[0], trace[1]!.split(" ")[0])
        assert.strictEqual(trace[2]!.split(" ")[0], trace[3]!.split(" ")[0])
      }))
  }

  it.live("without flock, a lock whose holder died is taken over", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-lock-")
      const bin = toolsDir(dir, false)
      mkdirSync(join(dir, "repos", ".app.lock.d"), { recursive: true })
      // A pid no process has: the holder is gone.
      writeFileSync(join(dir, "repos", ".app.lock.d", "pid"), "2147483646\n")
      assert.strictEqual(yield* holder(dir, bin, "a"), 0)
      assert.deepStrictEqual(readFileSync(join(dir, "trace"), "utf8").trim().split("\n"), ["a in", "a out"])
    }))
})
