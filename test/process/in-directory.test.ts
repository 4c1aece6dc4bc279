/** Ending what a spawn left running in its worktree (src/process/in-directory.ts): real processes, a real directory. */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { endProcessesIn, processesIn } from "../../src/process/in-directory.ts"

describe("processes working in a directory", () => {
  it("are found by their current directory (below it too, not beside it) and ended", async () => {
    const root = mkdtempSync(join(tmpdir(), "orch-in-dir-"))
    const worktree = join(root, "app-1")
    mkdirSync(join(worktree, "sub"), { recursive: true })
    mkdirSync(join(root, "app-10"))
    const inside = spawn("sleep", ["30"], { cwd: join(worktree, "sub") })
    const beside = spawn("sleep", ["30"], { cwd: join(root, "app-10") })
    try {
      const exited = new Promise((resolve) => inside.once("exit", (_code, signal) => resolve(signal)))
      assert.deepStrictEqual(processesIn(worktree), [inside.pid!])
      assert.strictEqual(endProcessesIn(worktree), 1)
      assert.strictEqual(await exited, "SIGKILL")
      assert.deepStrictEqual(processesIn(join(root, "app-10")), [beside.pid!])
    } finally {
      inside.kill("SIGKILL")
      beside.kill("SIGKILL")
      rmSync(root, { recursive: true, force: true })
    }
  })
})
