/**
 * Whether a supervisor runs is its answer's to say. The verdict is a pure rule (table); connecting is tried
 * against real sockets: none, one whose listener was `kill -9`ed, one that says nothing, one that hangs up.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { connectSupervisor, type Leftovers, type PingOutcome, removeLeftovers, verdict } from "../../src/ipc/liveness.ts"
import { pingSupervisor } from "../../src/ipc/raw-ping.ts"
import { processStartTime } from "../../src/store/process-liveness.ts"
import { socketPath, supervisorFilePath } from "../../src/store/supervisor-file.ts"
import { eventually, processGone } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"

const info = { pid: 7, version: "0.1.0", startedAt: "2026-01-01T00:00:00Z", projects: ["app"], sessions: 0, dashboardUrl: "http://127.0.0.1:3000/" }
const file = { pid: 7, socket: "/x/orch.sock", startedAt: info.startedAt, version: info.version, dashboardUrl: info.dashboardUrl }
const both: Leftovers = { file, socket: true }
const none: Leftovers = { file: undefined, socket: false }

describe("verdict", () => {
  it.each<[string, PingOutcome, Leftovers, boolean, string]>([
    ["an answer: running, whatever the files say", { _tag: "Answered", info, client: undefined }, none, false, "Running"],
    ["refused, files left (kill -9, zombie)", { _tag: "Unreachable" }, both, true, "NotRunning"],
    ["refused, nothing on disk", { _tag: "Unreachable" }, none, false, "NotRunning"],
    ["no answer in time", { _tag: "Silent" }, both, true, "Unresponsive"],
    ["hung up on a live process", { _tag: "Garbled", reason: "closed" }, both, true, "Unresponsive"],
    ["hung up, its process gone", { _tag: "Garbled", reason: "closed" }, both, false, "NotRunning"]
  ])("%s", (_, ping, leftovers, alive, expected) => assert.strictEqual(verdict(ping, leftovers, alive)._tag, expected))
})

const listening = (server: Server, path: string) =>
  Effect.acquireRelease(
    Effect.callback<Server>((resume) => {
      server.listen(path, () => resume(Effect.succeed(server)))
    }),
    (s) => Effect.sync(() => s.close())
  )

const withFile = (root: string, pid: number, pidStart?: string) => {
  mkdirSync(root, { recursive: true })
  writeFileSync(supervisorFilePath(root), JSON.stringify({ ...file, pid, ...(pidStart !== undefined ? { pidStart } : {}), socket: socketPath(root) }))
}

describe("connectSupervisor (real sockets)", () => {
  it.live("no socket: not running, nothing left", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const found = yield* Effect.scoped(connectSupervisor(root))
      assert.deepStrictEqual(found, { _tag: "NotRunning", leftovers: none, socket: socketPath(root) })
    }))

  it.live("a socket whose listener was killed -9: refused at once, not running; its files are leftovers and removable", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const child = spawn(process.execPath, ["-e", `require("net").createServer().listen(${JSON.stringify(socketPath(root))})`])
      yield* eventually("the socket", () => existsSync(socketPath(root)))
      withFile(root, child.pid!)
      child.kill("SIGKILL")
      yield* eventually("the listener to die", () => processGone(child.pid!))
      const found = yield* Effect.scoped(connectSupervisor(root))
      assert.strictEqual(found._tag, "NotRunning", "refused, not timed out (that would be Unresponsive)")
      assert.isUndefined(yield* Effect.promise(() => pingSupervisor(socketPath(root))))
      if (found._tag !== "NotRunning") return
      assert.isTrue(found.leftovers.socket)
      assert.strictEqual(found.leftovers.file?.pid, child.pid)
      yield* removeLeftovers(root, found.leftovers)
      assert.isFalse(existsSync(socketPath(root)))
      assert.isFalse(existsSync(supervisorFilePath(root)))
    }))

  it.live("a listener that never answers: unresponsive, after the ping timeout and one more patient ping", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      mkdirSync(root, { recursive: true })
      yield* listening(createServer(() => {}), socketPath(root))
      withFile(root, process.pid)
      const started = Date.now()
      const found = yield* Effect.scoped(connectSupervisor(root))
      assert.strictEqual(found._tag, "Unresponsive")
      assert.isAtLeast(Date.now() - started, 1900, "a silent socket gets its second chance")
      assert.isUndefined(yield* Effect.promise(() => pingSupervisor(socketPath(root), 100)))
    }))

  it.live("a listener that hangs up: unresponsive while its process lives, not running once supervisor.json names a dead one", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      mkdirSync(root, { recursive: true })
      yield* listening(createServer((socket) => socket.destroy()), socketPath(root))
      withFile(root, process.pid)
      assert.strictEqual((yield* Effect.scoped(connectSupervisor(root)))._tag, "Unresponsive")
      const gone = spawn("true")
      yield* eventually("a pid that is gone", () => gone.exitCode !== null && processGone(gone.pid!))
      withFile(root, gone.pid!)
      assert.strictEqual((yield* Effect.scoped(connectSupervisor(root)))._tag, "NotRunning")
    }))

  it.live("refused while supervisor.json names its live process: it is stopping, and the answer waits until it lets go", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const stopping = spawn("sleep", ["30"])
      yield* eventually("its start time", () => processStartTime(stopping.pid!) !== undefined)
      withFile(root, stopping.pid!, processStartTime(stopping.pid!))
      const said: Array<string> = []
      const recording: Console.Console = { ...globalThis.console, error: (...words: ReadonlyArray<unknown>) => void said.push(words.join(" ")) }
      const connecting = yield* Effect.forkChild(Effect.scoped(connectSupervisor(root)).pipe(Effect.provideService(Console.Console, recording)))
      yield* eventually("it says it waits", () => said.includes(`orch: the supervisor (pid ${stopping.pid}) is stopping; waiting for it to finish`))
      // It lets go (here: its process ends), then the command goes on: no supervisor.
      stopping.kill("SIGKILL")
      const found = yield* Fiber.join(connecting)
      assert.strictEqual(found._tag, "NotRunning")
    }))

  it.live("refused while supervisor.json names a pid another process has now (its start time differs): not running, at once", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      withFile(root, process.pid, "1")
      const found = yield* Effect.scoped(connectSupervisor(root))
      assert.strictEqual(found._tag, "NotRunning")
    }), { timeout: 5_000 })
})
