/**
 * A supervisor on its way out (src/store/supervisor-file.ts `stoppingSupervisor`): `supervisor.json` names a process
 * that still runs, and not under the supervisor lock (one starting holds it while it writes the file and binds its
 * socket). On real processes; and what `orch status` and `orch queue ls` say of it, on the built CLI.
 */
import { spawn, spawnSync } from "node:child_process"
import { once } from "node:events"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { processStartTime } from "../../src/store/process-liveness.ts"
import { stoppingSupervisor, supervisorFilePath } from "../../src/store/supervisor-file.ts"

describe("a supervisor on its way out", () => {
  let home: string
  let root: string
  let running: ReturnType<typeof spawn>
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "orch-stopping-"))
    root = join(home, ".orchestrator")
    mkdirSync(root, { recursive: true })
    running = spawn("sleep", ["30"])
  })
  afterEach(() => {
    running.kill("SIGKILL")
    rmSync(home, { recursive: true, force: true })
  })
  const naming = (pid: number, pidStart: string | undefined) =>
    writeFileSync(
      supervisorFilePath(root),
      JSON.stringify({
        pid,
        ...(pidStart !== undefined ? { pidStart } : {}),
        socket: join(root, "orch.sock"),
        startedAt: "",
        version: "0.1.0",
        dashboardUrl: ""
      })
    )
  const locked = (pid: number) => {
    mkdirSync(join(root, "locks", "supervisor.lock"), { recursive: true })
    writeFileSync(join(root, "locks", "supervisor.lock", "owner"), `${pid} ${processStartTime(pid)}`)
  }

  it("is one whose process runs; not one starting (under the lock), nor one gone, nor another process with its pid", async () => {
    const pid = running.pid!
    naming(pid, processStartTime(pid))
    expect(stoppingSupervisor(root)?.pid).toBe(pid)
    locked(pid)
    expect(stoppingSupervisor(root)).toBeUndefined()
    locked(process.pid)
    expect(stoppingSupervisor(root)?.pid).toBe(pid)
    naming(pid, "1")
    expect(stoppingSupervisor(root)).toBeUndefined()
    const gone = spawn("true")
    await once(gone, "exit")
    naming(gone.pid!, undefined)
    expect(stoppingSupervisor(root)).toBeUndefined()
  })

  it.each([[["status", "--json"]], [["queue", "ls"]]])("orch %j says so, and exits 0", (args) => {
    naming(running.pid!, processStartTime(running.pid!))
    const result = spawnSync(process.execPath, [resolve("dist/orch.mjs"), ...args], { env: { PATH: process.env.PATH ?? "", HOME: home }, encoding: "utf8" })
    expect(result.status).toBe(0)
    expect(result.stderr).toBe(
      `orch: warning: the supervisor (pid ${running.pid}) is stopping: the starts it had under way go back to the queue, and \`orch start\` starts a new one once it has gone\n`
    )
  })
})
