/**
 * A supervisor is running only when it answers. These run the built CLI against real supervisors: one killed
 * and left a zombie (its parent never reaps it, as under a container's PID 1 that does not), one that left only
 * its files, two `orch start --detach` at once, and a detached start that fails.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { ORCH_BIN } from "../support/cli.ts"
import { eventually, processGone } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { procState, underNonReapingParent } from "../support/zombie.ts"

const supervisorFile = (dataDir: string) => {
  try {
    return JSON.parse(readFileSync(join(dataDir, "supervisor.json"), "utf8")) as { pid: number; socket: string }
  } catch {
    return undefined
  }
}

/** Processes running `orch start` with this HOME (their environment says so). */
const supervisors = (home: string) =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      return argv.includes(ORCH_BIN) && argv.includes("start") && procState(Number(pid)) !== "Z" &&
        readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`)
    } catch {
      return false
    }
  }).map(Number)

const reportedPid = (stdout: string) => Number(/^(?:supervisor started|joined the supervisor already running) \(pid (\d+)\)$/m.exec(stdout)?.[1])

describe("a supervisor runs when it answers", () => {
  it.live("a killed supervisor left a zombie: commands carry on without it, and start takes over", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const log = join(s.root, "foreground.log")
      const env = { ...s.env, PATH: process.env.PATH ?? "" }
      const { pid } = yield* underNonReapingParent(
        `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(ORCH_BIN)} start app --no-open > ${JSON.stringify(log)} 2>&1`,
        env,
        s.root
      )
      yield* eventually("the supervisor to start the orchestrator", () => existsSync(log) && readFileSync(log, "utf8").includes("stops the supervisor"), 20_000)
      assert.strictEqual(supervisorFile(s.dataDir)?.pid, pid)
      process.kill(pid, "SIGKILL")
      yield* eventually("the supervisor to be a zombie", () => procState(pid) === "Z")
      assert.doesNotThrow(() => process.kill(pid, 0), "kill(pid, 0) still says it is alive")

      const spawned = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      assert.strictEqual(spawned.stdout, "app-1\n")
      assert.strictEqual((yield* s.orch(["send", "app-1", "hello"])).stdout, "delivered to app-1\n")

      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      assert.strictEqual(started.stderr, "")
      const newPid = reportedPid(started.stdout)
      assert.notStrictEqual(newPid, pid)
      assert.include(started.stdout, "orchestrator session app-orchestrator is already running for app", "the orchestrator agent outlived its supervisor")
      assert.strictEqual(supervisorFile(s.dataDir)?.pid, newPid)
      const stopped = yield* s.orch(["stop"])
      assert.strictEqual(stopped.stdout, `supervisor stopped (pid ${newPid}); sessions keep running\n`)
    }), 60_000)

  it.live("a dead supervisor's files (socket, supervisor.json) are removed by stop, and taken over by start", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const leave = Effect.gen(function*() {
        const socket = join(s.dataDir, "orch.sock")
        const child = spawn(process.execPath, [
          "-e",
          `require("fs").mkdirSync(${JSON.stringify(s.dataDir)},{recursive:true});require("net").createServer().listen(${JSON.stringify(socket)})`
        ])
        yield* eventually("the socket", () => existsSync(socket))
        writeFileSync(
          join(s.dataDir, "supervisor.json"),
          JSON.stringify({ pid: child.pid, socket, startedAt: "2026-01-01T00:00:00.000Z", version: "0.0.1", dashboardUrl: "http://127.0.0.1:1/" })
        )
        child.kill("SIGKILL")
        yield* eventually("the process to be gone", () => processGone(child.pid!))
        return child.pid!
      })
      const dead = yield* leave
      const stopped = yield* s.orch(["stop"])
      assert.deepStrictEqual(stopped, { code: 0, stdout: `No supervisor is running (pid ${dead} had died; removed the files it left).\n`, stderr: "" })
      assert.isFalse(existsSync(join(s.dataDir, "orch.sock")))
      assert.isFalse(existsSync(join(s.dataDir, "supervisor.json")))
      assert.strictEqual((yield* s.orch(["stop"])).stdout, "No supervisor is running.\n")

      yield* leave
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      assert.include(started.stdout, "orchestrator session app-orchestrator started for app")
      assert.strictEqual(supervisorFile(s.dataDir)?.pid, reportedPid(started.stdout))
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)

  it.live(
    "two `orch start --detach` at once: one supervisor, which one started and the other joined; one started the orchestrator, the other says it was already running",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox()
        const [a, b] = yield* Effect.all([s.orch(["start", "app", "--detach", "--no-open"]), s.orch(["start", "app", "--detach", "--no-open"])], {
          concurrency: 2
        })
        assert.strictEqual(a.code, 0, a.stderr)
        assert.strictEqual(b.code, 0, b.stderr)
        assert.strictEqual(reportedPid(a.stdout), reportedPid(b.stdout), "both name the same supervisor")
        const says = [a.stdout, b.stdout].map((out) => /app-orchestrator (started|is already running)/.exec(out)?.[1]).sort()
        assert.deepStrictEqual(says, ["is already running", "started"])
        const supervisor = [a.stdout, b.stdout].map((out) => /^(supervisor started|joined the supervisor already running) /m.exec(out)?.[1]).sort()
        assert.deepStrictEqual(supervisor, ["joined the supervisor already running", "supervisor started"], "one started it, the other joined")
        // The start that joined ends its detached child once it has said so: the receipt is that child gone.
        yield* eventually("the joining start's child to end", () => supervisors(s.home).length === 1)
        assert.deepStrictEqual(supervisors(s.home), [reportedPid(a.stdout)], "one supervisor process")
        assert.deepStrictEqual(s.sessions(), ["app-orchestrator"])
        assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      }),
    60_000
  )

  it.live("a detached start that fails says why at once (the supervisor's own sentence) and exits non-zero", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const blocker = yield* Effect.acquireRelease(
        Effect.callback<ReturnType<typeof createServer>>((resume) => {
          const server = createServer().listen(s.port, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.sync(() => server.close())
      )
      assert.isTrue(blocker.listening)
      const started = Date.now()
      const run = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.isBelow(Date.now() - started, 10_000, "not the old 15 s wait")
      assert.deepStrictEqual(run, {
        code: 1,
        stdout: "",
        stderr: `orch: cannot listen on 127.0.0.1:${s.port} (port): the port is in use by another program; set \`port:\` in orchestrator.yaml to a free port\n`
      })
      assert.deepStrictEqual(supervisors(s.home), [])
    }), 60_000)
})
