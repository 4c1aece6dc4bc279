/**
 * The session-size sampler on real processes: a session's agent tree (a shell with children holding memory) is
 * measured with one real `ps`, its agent's figure written to session-sizes.json, and admission reads it.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { makeSessionSizes, SIZE_SAMPLE_INTERVAL } from "../../actors/session-sizes.ts"
import { HostConnections } from "../../src/hosts/HostConnections.ts"
import { exec } from "../../src/process/exec.ts"
import { DEFAULT_SESSION_BYTES, expectedSize } from "../../src/sessions/admission-facts.ts"
import { readSessionSizes, sessionSizesPath } from "../../src/store/session-sizes-file.ts"
import { eventually } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"
import { makeSshHosts, sshHostsUnavailable } from "../support/ssh-hosts.ts"

const MB = 1024 ** 2

describe("session sizes, measured", () => {
  it.live("one ps measures each session's whole process tree; admission then expects that much of one more session", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      // An "agent": a shell whose child holds 64 MB (node allocating and touching a buffer).
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn("sh", ["-c", `${process.execPath} -e 'const b = Buffer.alloc(64 * 1024 * 1024, 1); console.log("held"); setInterval(() => b[0]++, 1000)'`], {
            stdio: ["ignore", "pipe", "ignore"],
            detached: true
          })
        ),
        (child) => Effect.sync(() => process.kill(-child.pid!, "SIGKILL"))
      )
      let out = ""
      agent.stdout!.on("data", (chunk) => (out += chunk))
      yield* eventually("the agent to hold its memory", () => out.includes("held"))

      // This machine is real; host b cannot be reached: its sessions wait for the next minute, the others are measured.
      const ps = (host: string) =>
        host === "b" ? Effect.fail({ message: "host b is not answering" }) : exec("ps", ["-e", "-o", "pid=,ppid=,rss="]).pipe(
          Effect.map((result) => result.stdout),
          Effect.mapError((error) => ({ message: error.message })),
          Effect.provide(NodeServices.layer)
        )
      const sizes = yield* makeSessionSizes({ root, ps })
      yield* sizes.sample([])
      assert.isFalse(existsSync(sessionSizesPath(root)), "no session here: nothing measured or written")
      assert.strictEqual(expectedSize(readSessionSizes(root))("claude-code"), DEFAULT_SESSION_BYTES)

      yield* sizes.sample([
        { agent: "claude-code", host: "local", pid: agent.pid! },
        { agent: "codex", host: "local", pid: 2 ** 22 + 7 },
        { agent: "aider", host: "b", pid: 1 }
      ])
      const measured = readSessionSizes(root)
      assert.isAbove(measured["claude-code"]!.bytes, 64 * MB, "the child's memory counts: the tree, not the shell alone")
      assert.isBelow(measured["claude-code"]!.bytes, 512 * MB)
      assert.isUndefined(measured.codex, "a session no longer running is no sample")
      assert.isUndefined(measured.aider, "a host that did not answer is no sample")
      assert.strictEqual(expectedSize(measured)("claude-code"), measured["claude-code"]!.bytes)
      assert.strictEqual(expectedSize(measured)("codex"), DEFAULT_SESSION_BYTES)
    }))

  it.effect("a sample is due at the first probe cycle, then a minute apart; its figure survives a restart (the file)", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      let reads = 0
      const hostsAsked: Array<string> = []
      const ps = (host: string) =>
        Effect.sync(() => {
          hostsAsked.push(host)
          if (host === "a") reads++
          return host === "a" ? `  1 0 100\n 10 1 ${reads * 100 * 1024}\n 20 1 1024\n` : `  1 0 100\n 10 1 ${50 * 1024}\n`
        })
      // Two sessions on host a (the larger counts), one on b: one ps per host.
      const live = [{ agent: "codex", host: "a", pid: 10 }, { agent: "codex", host: "a", pid: 20 }, { agent: "codex", host: "b", pid: 10 }]
      const sizes = yield* makeSessionSizes({ root, ps })
      yield* sizes.sample(live)
      assert.strictEqual(reads, 1)
      assert.sameMembers(hostsAsked, ["a", "b"])
      yield* TestClock.adjust(Duration.subtract(SIZE_SAMPLE_INTERVAL, Duration.millis(1)))
      yield* sizes.sample(live)
      assert.strictEqual(reads, 1, "not due yet")
      yield* TestClock.adjust(Duration.millis(1))
      yield* sizes.sample(live)
      assert.strictEqual(reads, 2)
      assert.deepStrictEqual(readSessionSizes(root), { codex: { bytes: 200 * MB, rounds: 2 } })

      const after = yield* makeSessionSizes({ root, ps })
      assert.deepStrictEqual(yield* after.sizes, { codex: { bytes: 200 * MB, rounds: 2 } })
    }))

  it.live.skipIf(sshHostsUnavailable !== undefined)(
    "a session on another host is measured by one ps there, through its connection",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["a"])
        const a = pool.hosts[0]!
        const root = yield* tempDir()
        const connections = yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(root, "ssh") })
        const pid = Number(a.shell("nohup sleep 300 >/dev/null 2>&1 & echo $!").trim())
        const ps = (host: string) =>
          connections.run(host, "ps -e -o pid=,ppid=,rss=").pipe(Effect.map((result) => result.stdout), Effect.provide(NodeServices.layer))
        const sizes = yield* makeSessionSizes({ root, ps })
        yield* sizes.sample([{ agent: "codex", host: "a", pid }])
        const measured = readSessionSizes(root).codex
        assert.isDefined(measured, "the host's process was found by its ps")
        assert.isAbove(measured!.bytes, 0)
      }).pipe(Effect.provide(NodeServices.layer))
  )
})
