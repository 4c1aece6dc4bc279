/**
 * Placement counts what it placed (src/sessions/host-choice.ts): sessions admitted one at a time, each spawn reading
 * every host's headroom afresh, alternate between two equal hosts, because the session the last one placed holds
 * its reservation in the records until the host's figures include it. Hosts answer with fixed figures here (a fake
 * connection); test/hosts/ has the real sshd hosts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import type { HostConnectionsShape } from "../../src/hosts/HostConnections.ts"
import type { HostReading } from "../../src/hosts/placement.ts"
import { chooseHost, placementBlocker } from "../../src/sessions/host-choice.ts"
import { readMeasured } from "../../src/sessions/reservations.ts"
import { writeSessionSizes } from "../../src/store/session-sizes-file.ts"
import { tempDir, withHost } from "../support/host.ts"
import { workingSession } from "../support/session-record.ts"

const LINUX = readFileSync(join(import.meta.dirname, "..", "fixtures", "headroom", "linux-2cpu.txt"), "utf8")
/** The headroom script's answer of a host with `mb` MB available (the fixture's load is 4.68 on 2 CPUs). */
const answer = (mb: number) => LINUX.replace(/^MemAvailable:.*$/m, `MemAvailable:   ${mb * 1024} kB`).replace(/^4\.68 /m, "0.10 ")

/** Hosts that answer the headroom script with `available[host]` MB free, and the project's origin for git. */
const fakeHosts = (available: Record<string, number>) => {
  const asked: Array<string> = []
  const connections = {
    run: (host: string, script: string) =>
      Effect.sync(() => {
        if (script.startsWith("git ")) return { exitCode: 0, stdout: "https://example.com/acme/app.git\n", stderr: "" }
        asked.push(host)
        return { exitCode: 0, stdout: answer(available[host] ?? 0), stderr: "" }
      })
  } as unknown as HostConnectionsShape
  return { connections, asked }
}

const setup = Effect.gen(function*() {
  const root = yield* tempDir()
  const config = yield* validateConfig({
    hosts: { a: { ssh: "me@a" }, b: { ssh: "me@b" } },
    projects: { app: { repo: "acme/app", path: join(root, "app"), tracker: { plugin: "none" }, hosts: ["a", "b"] } }
  }).pipe(withHost({ cwd: root, homeDir: root }))
  return { root, config, project: config.projects.app! }
})

/** A session that just started on `host`, as the spawn leaves its record. */
const startedOn = (n: number, host: string) =>
  Effect.map(Clock.currentTimeMillis, (now): SessionRecord => workingSession(now, { sessionId: `app-${n}`, issueId: String(n), host }))

describe("sessions placed one at a time", () => {
  it.effect("alternate between two equal hosts: each spawn's fresh reading is less what the last one placed", () =>
    Effect.gen(function*() {
      const { root, config, project } = yield* setup
      const hosts = fakeHosts({ a: 20_000, b: 20_000 })
      const records: Array<SessionRecord> = []
      const placed: Array<string> = []
      for (let n = 1; n <= 4; n++) {
        // As the supervisor's admission round and the spawn it starts do: the records and the sizes file read again.
        const { reserved } = yield* readMeasured(root, records)
        const choice = yield* chooseHost(hosts.connections, config, project, records, reserved, undefined)
        placed.push(choice.host)
        records.push(yield* startedOn(n, choice.host))
      }
      assert.deepStrictEqual(placed, ["a", "b", "a", "b"])
      // One headroom read per host (local, a, b) per spawn, not one per session on it.
      assert.deepStrictEqual(hosts.asked.toSorted(), [...Array(4).fill("a"), ...Array(4).fill("b"), ...Array(4).fill("local")])
    }))

  it.effect("a host with room for one session takes one: the next spawn there is refused with what the first reserved", () =>
    Effect.gen(function*() {
      const { root, config, project } = yield* setup
      const hosts = fakeHosts({ a: 1500, b: 1500 })
      const records: Array<SessionRecord> = []
      for (let n = 1; n <= 2; n++) {
        const { reserved } = yield* readMeasured(root, records)
        records.push(yield* startedOn(n, (yield* chooseHost(hosts.connections, config, project, records, reserved, undefined)).host))
      }
      assert.deepStrictEqual(records.map((r) => r.host), ["a", "b"])
      const { reserved } = yield* readMeasured(root, records)
      const third = yield* Effect.result(chooseHost(hosts.connections, config, project, records, reserved, undefined))
      assert.isTrue(Result.isFailure(third))
      assert.include(
        Result.isFailure(third) ? third.failure.message : "",
        "a: 476 MB of memory free (after 1024 MB reserved for sessions just placed), a session needs 1024 MB; b: 476 MB of memory free (after 1024 MB reserved for sessions just placed)"
      )
    }))

  it.effect("admission with hosts: the reservations of the sessions it started count until a size sample includes them", () =>
    Effect.gen(function*() {
      const { root, config, project } = yield* setup
      const measured = (mb: number): HostReading => ({
        _tag: "Measured",
        facts: { memAvailableMb: mb, memTotalMb: 4096, load1: 0.1, cpus: 2, disk: { path: "/home/orch", freeMb: 50_000 }, tmux: "3.3a" }
      })
      const readings = new Map<string, HostReading>([["local", measured(0)], ["a", measured(1500)], ["b", measured(1500)]])
      const blocked = Effect.fnUntraced(function*(records: ReadonlyArray<SessionRecord>) {
        const { reserved } = yield* readMeasured(root, records)
        return placementBlocker(config, project, records, reserved, readings)
      })
      assert.strictEqual(yield* blocked([]), undefined)
      const records = [yield* startedOn(1, "a")]
      assert.strictEqual(yield* blocked(records), undefined, "b still has room")
      records.push(yield* startedOn(2, "b"))
      assert.strictEqual(
        yield* blocked(records),
        "no host can take the session: local: the project may not use it (its hosts: a, b); a: 476 MB of memory free (after 1024 MB reserved for sessions just placed), a session needs 1024 MB; b: 476 MB of memory free (after 1024 MB reserved for sessions just placed), a session needs 1024 MB"
      )
      // A minute on, measurable, but no sample yet: still held. The supervisor's next sample includes them.
      yield* TestClock.adjust("61 seconds")
      assert.notStrictEqual(yield* blocked(records), undefined)
      yield* writeSessionSizes(root, { at: new Date(yield* Clock.currentTimeMillis).toISOString(), agents: {} })
      assert.strictEqual(yield* blocked(records), undefined)
    }))
})
