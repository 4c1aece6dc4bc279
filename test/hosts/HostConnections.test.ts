import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { HostConnections, reconnectSchedule } from "../../src/hosts/HostConnections.ts"
import { controlPath } from "../../src/hosts/ssh-command.ts"
import { tempDir } from "../support/host.ts"
import { makeSshHosts, type SshHost, type SshHostsOptions, sshHostsUnavailable } from "../support/ssh-hosts.ts"

/** The ssh processes that are `host`'s master (ssh titles a master "ssh: <ControlPath> [mux]"). */
const masters = (path: string): Array<number> =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim() === `ssh: ${path} [mux]`
    } catch {
      return false
    }
  }).map(Number)

/** Connections the host's sshd accepted so far. */
const accepted = (host: SshHost) => host.log().filter((line) => /Accepted publickey/.test(line)).length

/** Two harness hosts and a HostConnections over them (short timeouts, fast reconnects), for one test. */
const setup = (names: ReadonlyArray<string> = ["a", "b"], options: SshHostsOptions = {}) =>
  Effect.gen(function*() {
    const pool = yield* makeSshHosts(names, options)
    const data = yield* tempDir("orch-hosts-data-")
    const controlDir = join(data, "ssh")
    const connections = yield* HostConnections.make({
      hosts: pool.hosts,
      controlDir,
      timeout: "3 seconds",
      reconnect: reconnectSchedule("200 millis", "1 second")
    })
    return { pool, connections, controlDir, path: (host: SshHost) => controlPath(controlDir, host) }
  })

const live = sshHostsUnavailable === undefined ? it.live : it.live.skip

describe(`HostConnections over real sshd hosts${sshHostsUnavailable ? ` (skipped: ${sshHostsUnavailable})` : ""}`, () => {
  live(
    "each host answers as its own user, and many round trips, from the first on, share one master and one connection per host",
    () =>
      Effect.gen(function*() {
        const { pool, connections, controlDir, path } = yield* setup()
        const [a, b] = pool.hosts as [SshHost, SshHost]
        // Twenty round trips to hosts never contacted, twelve at a time (more than sshd's 10 sessions per connection).
        const results = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) => connections.run(i % 2 ? "a" : "b", `echo ${i}`), {
          concurrency: 12
        })
        assert.deepStrictEqual(results.map((result) => result.stdout.trim()), Array.from({ length: 20 }, (_, i) => String(i)))
        const whoami = yield* Effect.forEach([a, b], (host) => connections.run(host.name, "id -un; echo \"$HOME\""), { concurrency: 2 })
        assert.deepStrictEqual(whoami.map((result) => result.stdout), [`${a.user}\n${a.home}\n`, `${b.user}\n${b.home}\n`])
        assert.strictEqual(statSync(controlDir).mode & 0o777, 0o700)
        for (const host of [a, b]) {
          assert.strictEqual(accepted(host), 1, `${host.name}'s sshd accepted one connection`)
          const pid = yield* connections.masterPid(host.name)
          assert.deepStrictEqual(masters(path(host)), [pid])
        }
        assert.deepStrictEqual([...(yield* connections.states)].map(([name, state]) => [name, state._tag]), [["local", "Up"], ["a", "Up"], ["b", "Up"]])
      }).pipe(Effect.provide(NodeServices.layer))
  )

  live("a script and its stdin never reach a command line; a command reading stdin gets the input, not the script", () =>
    Effect.gen(function*() {
      const { connections } = yield* setup(["a"])
      const secret = "s3cr3t-'quoted' \"and\" $HOME `x`"
      const result = yield* connections.run("a", `read -r line; printf '%s|' "$line"; cat; echo "after"; exit 3`, { stdin: `${secret}\nsecond line` })
      assert.deepStrictEqual(result, { exitCode: 3, stdout: `${secret}|second line\nafter\n`, stderr: "" })
      const commandLines = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8")
        } catch {
          return ""
        }
      })
      assert.isFalse(commandLines.some((line) => line.includes("s3cr3t")))
      const local = yield* connections.run("local", "cat", { stdin: "here" })
      assert.deepStrictEqual(local, { exitCode: 0, stdout: "here\n", stderr: "" })
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a command slower than its limit fails, but its host, still answering, stays Up and takes the next one", () =>
    Effect.gen(function*() {
      const { connections } = yield* setup(["a"])
      yield* connections.run("a", "true")
      const error = yield* connections.run("a", "sleep 3", { timeout: "1 second" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "HostTimedOut")
      assert.strictEqual((yield* connections.state("a"))._tag, "Up")
      assert.strictEqual((yield* connections.run("a", "echo still")).stdout, "still\n")
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a killed master is made again by the next round trip, which still succeeds", () =>
    Effect.gen(function*() {
      const { pool, connections, path } = yield* setup(["a"])
      const a = pool.hosts[0]!
      yield* connections.run("a", "true")
      const first = (yield* connections.masterPid("a"))!
      process.kill(first, "SIGKILL")
      const result = yield* connections.run("a", "echo again")
      assert.strictEqual(result.stdout, "again\n")
      const second = yield* connections.masterPid("a")
      assert.notStrictEqual(second, first)
      assert.deepStrictEqual(masters(path(a)), [second])
      assert.strictEqual(accepted(a), 2)
      assert.strictEqual((yield* connections.state("a"))._tag, "Up")
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a frozen host times out with one clear sentence, is Down and refuses work, and comes back Up after SIGCONT", () =>
    Effect.gen(function*() {
      const { pool, connections } = yield* setup(["a", "b"])
      const a = pool.hosts[0]!
      yield* connections.run("a", "true")
      const changes = yield* connections.changes.pipe(
        Stream.filter((change) => change.host === "a"),
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      yield* a.stop
      const error = yield* connections.run("a", "true", { timeout: "1 second" }).pipe(Effect.flip)
      assert.strictEqual(
        error.message,
        `host a (${a.user}@${a.address}:${a.port}) did not answer within 1 s: it may be frozen, overloaded or cut off; orch reconnects on its own, check the host if it stays down`
      )
      const refused = yield* connections.run("a", "true").pipe(Effect.flip)
      assert.strictEqual(refused._tag, "HostDown")
      assert.match(
        refused.message,
        /^host a \(.*\) did not answer within 1 s: .*; nothing is sent to host a until it can be reached again$/
      )
      // The other host is not affected.
      assert.strictEqual((yield* connections.run("b", "echo fine")).stdout, "fine\n")
      yield* a.resume
      const seen = yield* Fiber.join(changes)
      assert.deepStrictEqual(seen.map((change) => [change.host, change.state._tag]), [["a", "Down"], ["a", "Up"]])
      assert.strictEqual((yield* connections.run("a", "echo back")).stdout, "back\n")
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a frozen host is down 5 s into a command allowed a minute; a slow command on a host that answers runs to its end", () =>
    Effect.gen(function*() {
      const { pool, connections, controlDir } = yield* setup(["a"])
      const a = pool.hosts[0]!
      yield* connections.run("a", "true")
      // Slow but answering: the bare round trip asked after 1 s answers, and the command ends as it would.
      assert.strictEqual((yield* connections.run("a", "sleep 2; echo done", { timeout: "1 minute" })).stdout, "done\n")
      assert.strictEqual((yield* connections.state("a"))._tag, "Up")
      yield* a.stop
      const started = Date.now()
      const error = yield* connections.run("a", "true", { timeout: "1 minute" }).pipe(Effect.flip)
      const waited = Date.now() - started
      assert.strictEqual(error._tag, "HostTimedOut")
      assert.include(error.message, "did not answer within 5 s")
      assert.isBelow(waited, 8000, "told when the bare round trip went unanswered, not at the command's limit")
      assert.strictEqual((yield* connections.state("a"))._tag, "Down")
      // Another orch process (a CLI run alone) has never seen the host, but finds its master: the same 5 s.
      const other = yield* HostConnections.make({ hosts: pool.hosts, controlDir, timeout: "1 minute" })
      const before = Date.now()
      const fresh = yield* other.run("a", "true").pipe(Effect.flip)
      assert.strictEqual(fresh._tag, "HostTimedOut")
      assert.isBelow(Date.now() - before, 8000, "a fresh process is told as soon")
      yield* a.resume
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a host whose sshd died is Down with the reason, and Up again through a new master once sshd is back", () =>
    Effect.gen(function*() {
      const { pool, connections, path } = yield* setup(["a"])
      const a = pool.hosts[0]!
      yield* connections.run("a", "true")
      const first = yield* connections.masterPid("a")
      const changes = yield* connections.changes.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild({ startImmediately: true }))
      yield* a.kill
      const error = yield* connections.run("a", "true").pipe(Effect.flip)
      assert.strictEqual(error._tag, "HostConnectionFailed")
      assert.match(
        error.message,
        /^host a \(.*\) refused the connection \(ssh: connect to host .* Connection refused\); check that sshd runs there and the port is right$/
      )
      const down = yield* connections.state("a")
      assert.strictEqual(down._tag === "Down" && down.error._tag === "HostConnectionFailed" && down.error.problem, "connection-refused")
      yield* a.start
      assert.deepStrictEqual((yield* Fiber.join(changes)).map((change) => change.state._tag), ["Down", "Up"])
      assert.strictEqual((yield* connections.run("a", "echo back")).stdout, "back\n")
      const second = yield* connections.masterPid("a")
      assert.notStrictEqual(second, first)
      assert.deepStrictEqual(masters(path(a)), [second])
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a host in a network namespace whose link goes down times out and is Down; with the link back it is Up", () =>
    Effect.gen(function*() {
      const { pool, connections, path } = yield* setup(["a", "b"], { network: "netns" })
      const [a, b] = pool.hosts as [SshHost, SshHost]
      const answers = yield* Effect.forEach([a, b], (host) => connections.run(host.name, "id -un"), { concurrency: 2 })
      assert.deepStrictEqual(answers.map((result) => result.stdout.trim()), [a.user, b.user])
      // The master reaches its host through a ProxyCommand started by the ssh that made it: it outlives that ssh.
      assert.strictEqual((yield* connections.run("a", "echo again")).stdout, "again\n")
      assert.strictEqual(accepted(a), 1)
      assert.strictEqual(masters(path(a)).length, 1)
      const changes = yield* connections.changes.pipe(
        Stream.filter((change) => change.host === "a"),
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      yield* a.link("down")
      const error = yield* connections.run("a", "true", { timeout: "1 second" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "HostTimedOut")
      assert.strictEqual((yield* connections.run("b", "echo fine")).stdout, "fine\n")
      yield* a.link("up")
      assert.deepStrictEqual((yield* Fiber.join(changes)).map((change) => change.state._tag), ["Down", "Up"])
      assert.strictEqual((yield* connections.run("a", "echo back")).stdout, "back\n")
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a host whose key differs from known_hosts is refused with the offending entry, and known_hosts is left as it was", () =>
    Effect.gen(function*() {
      const { pool, connections } = yield* setup(["a"])
      const a = pool.hosts[0]!
      pool.misrecordKey(a)
      const before = readFileSync(pool.knownHosts, "utf8")
      const error = yield* connections.run("a", "true").pipe(Effect.flip)
      assert.strictEqual(error._tag, "HostConnectionFailed")
      assert.strictEqual(
        error.message,
        `host a (${a.user}@${a.address}:${a.port}) presented a host key that differs from the one in known_hosts (Offending ED25519 key in ${pool.knownHosts}:1); orch never accepts a changed key: if the host was reinstalled, verify its new key and replace the old entry (ssh-keygen -R)`
      )
      assert.strictEqual(readFileSync(pool.knownHosts, "utf8"), before)
      assert.strictEqual(accepted(a), 0)
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a key the host does not accept, and a host whose sshd is gone, each fail with their own sentence", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a", "b"])
      const [a, b] = pool.hosts as [SshHost, SshHost]
      const otherKey = join(pool.dir, "client", "not-authorized")
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", otherKey])
      const data = yield* tempDir("orch-hosts-data-")
      const connections = yield* HostConnections.make({
        hosts: [{ name: "a", spec: { ...a.spec, identityFile: otherKey } }, b],
        controlDir: join(data, "ssh"),
        timeout: "3 seconds"
      })
      const refused = yield* connections.run("a", "true").pipe(Effect.flip)
      assert.strictEqual(
        refused.message,
        `host a (${a.user}@${a.address}:${a.port}) refused the key (${a.user}@${a.address}: Permission denied (publickey).); check the host's identityFile and that its public key is in ~/.ssh/authorized_keys there`
      )
      yield* b.kill
      const gone = yield* connections.run("b", "true").pipe(Effect.flip)
      assert.strictEqual(
        gone.message,
        `host b (${b.user}@${b.address}:${b.port}) refused the connection (ssh: connect to host ${b.address} port ${b.port}: Connection refused); check that sshd runs there and the port is right`
      )
      const unknown = yield* connections.run("c", "true").pipe(Effect.flip)
      assert.strictEqual(unknown.message, "there is no host named c; the hosts are local, a, b")
    }).pipe(Effect.provide(NodeServices.layer)))
})
