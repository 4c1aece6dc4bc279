/**
 * The supervisor's watch over its hosts (actors/host-watch.ts) under TestClock: one headroom read per host per
 * minute, all at once; a host that stops answering is one host.down and one urgent notification however long it
 * stays down, and host.up when it answers again; a connection change is seen at once; hosts.json holds the views.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { HOST_READ_INTERVAL, makeHostWatch } from "../../actors/host-watch.ts"
import { makeLoopGuard } from "../../actors/loop-guard.ts"
import type { Notification } from "../../src/domain/notification.ts"
import { HostTimedOut } from "../../src/hosts/errors.ts"
import { HostsFile } from "../../src/hosts/host-watch.ts"
import type { HostConnectionsShape, HostStateChange } from "../../src/hosts/HostConnections.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { tempDir } from "../support/host.ts"

/** Connections whose round trips run here (the headroom script is real), `down` hosts timing out; changes on demand. */
const connections = Effect.gen(function*() {
  const reads = new Map<string, number>()
  const down = new Set<string>()
  const changes = yield* PubSub.unbounded<HostStateChange>()
  const shape: HostConnectionsShape = {
    run: (host, script) =>
      Effect.suspend(() => {
        reads.set(host, (reads.get(host) ?? 0) + 1)
        return down.has(host)
          ? Effect.fail(new HostTimedOut({ host, target: `orch@${host}`, seconds: 10 }))
          : Effect.succeed({ exitCode: 0, stdout: execFileSync("sh", ["-c", script], { encoding: "utf8" }), stderr: "" })
      }),
    state: () => Effect.succeed({ _tag: "Unknown" }),
    states: Effect.succeed(new Map()),
    changes: Stream.fromPubSub(changes),
    masterPid: () => Effect.succeed(undefined),
    interactive: () => Effect.succeed([])
  }
  return { shape, reads, down, changes }
})

describe("the host watch", () => {
  it.effect("reads each host once a minute; down is news once, with one notification; up again is news", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-host-watch-")
      const events = yield* EventLog.make(join(dir, "events.jsonl"))
      const notified: Array<Notification> = []
      const router = { notify: (n: Notification) => Effect.sync(() => void notified.push(n)) }
      const fake = yield* connections
      const watch = yield* makeHostWatch({
        events,
        router,
        hosts: Effect.succeed({ a: { dataDir: dir }, b: { dataDir: dir } }),
        connections: Effect.succeed(fake.shape),
        hostsFile: join(dir, "hosts.json")
      })
      const guard = makeLoopGuard({ events, notify: router.notify, logPath: join(dir, "supervisor.log") })
      const loop = yield* guard("host watch").forever(watch.round(), Effect.succeed(60_000)).pipe(Effect.forkChild)
      const logged = () => readFileSync(events.path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line))
      const hostsFileThere = () => existsSync(join(dir, "hosts.json"))
      const hostsFile = () => Schema.decodeUnknownSync(Schema.fromJsonString(HostsFile))(readFileSync(join(dir, "hosts.json"), "utf8"))

      yield* Effect.yieldNow.pipe(Effect.repeat({ until: () => fake.reads.size === 2 && hostsFileThere(), times: 1000 }))
      assert.deepStrictEqual(Object.fromEntries(fake.reads), { a: 1, b: 1 })
      assert.deepStrictEqual(Object.values(hostsFile().hosts).map((view) => view.status), ["up", "up"])
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(Object.fromEntries(fake.reads), { a: 1, b: 1 }, "not before the minute")
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(Object.fromEntries(fake.reads), { a: 2, b: 2 })

      fake.down.add("b")
      for (let minute = 0; minute < 5; minute++) yield* TestClock.adjust(HOST_READ_INTERVAL)
      assert.deepStrictEqual(logged().map((e) => [e.type, e.data.host]), [["host.down", "b"]])
      assert.deepStrictEqual(notified.map((n) => [n.type, n.priority]), [["host.down", "urgent"]])
      assert.strictEqual(hostsFile().hosts.b!.status, "down")
      assert.strictEqual(hostsFile().hosts.a!.status, "up")

      // The connection answering again is seen at once, not at the next minute.
      fake.down.delete("b")
      yield* PubSub.publish(fake.changes, { host: "b", state: { _tag: "Up", since: 0 } })
      yield* Effect.yieldNow.pipe(Effect.repeat({ until: () => logged().some((e) => e.type === "host.up"), times: 1000 }))
      assert.deepStrictEqual(logged().map((e) => e.type), ["host.down", "host.up"])
      // Down from the first read that failed (minute 2) to the change (minute 6).
      assert.strictEqual(logged()[1].data.downForMs, 4 * 60_000)
      assert.strictEqual(hostsFile().hosts.b!.status, "up")
      assert.strictEqual(notified.length, 1)
      yield* Fiber.interrupt(loop)
    }))

  it.effect("a host whose probe brought its headroom this minute is not read again by the round; due again at the minute", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-host-watch-")
      const events = yield* EventLog.make(join(dir, "events.jsonl"))
      const fake = yield* connections
      const watch = yield* makeHostWatch({
        events,
        router: { notify: () => Effect.void },
        hosts: Effect.succeed({ a: { dataDir: dir }, b: { dataDir: dir } }),
        connections: Effect.succeed(fake.shape),
        hostsFile: join(dir, "hosts.json")
      })
      assert.isTrue(yield* watch.due("a"), "never read: due")
      const facts = { memAvailableMb: 4000, memTotalMb: 8000, load1: 0.5, cpus: 4, disk: { path: "/", freeMb: 9000 }, tmux: "3.3a" }
      yield* watch.took("a", facts)
      assert.isFalse(yield* watch.due("a"))
      yield* watch.round()
      assert.deepStrictEqual(Object.fromEntries(fake.reads), { b: 1 }, "only the host no probe read")
      assert.deepStrictEqual((yield* watch.views).get("a")?.headroom, facts)
      yield* TestClock.adjust("54 seconds")
      assert.isFalse(yield* watch.due("a"))
      yield* TestClock.adjust("1 second")
      assert.isTrue(yield* watch.due("a"), "due a probe cycle before the minute, so the probe takes it")
      yield* watch.took("a", "its answer was cut short")
      assert.strictEqual((yield* watch.views).get("a")?.lastError, "orch could not read host a's headroom: its answer was cut short")
    }))
})
