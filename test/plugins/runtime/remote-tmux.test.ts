import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { join } from "node:path"
import { HostConnections, type HostConnectionsShape } from "../../../src/hosts/HostConnections.ts"
import { makeRemoteTmux } from "../../../src/plugins/runtime/remote-tmux.ts"
import { tempDir } from "../../support/host.ts"
import { makeSshHosts, sshHostsUnavailable } from "../../support/ssh-hosts.ts"

/** The connection service, counting round trips per host. */
const counting = (connections: HostConnectionsShape) => {
  const trips = new Map<string, number>()
  const counted: HostConnectionsShape = {
    ...connections,
    run: (host, script, options) =>
      Effect.suspend(() => {
        trips.set(host, (trips.get(host) ?? 0) + 1)
        return connections.run(host, script, options)
      })
  }
  return { counted, trips }
}

/** Waits for a screen to show `text` (a real agent printing), asking again every 100 ms for up to 5 s. */
const screenShows = <E>(capture: Effect.Effect<string, E>, text: string) =>
  capture.pipe(
    Effect.filterOrFail((screen) => screen.includes(text), () => `the screen never showed ${text}`),
    Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 })
  )

const live = sshHostsUnavailable === undefined ? it.live : it.live.skip

describe(`tmux on a host through its connection${sshHostsUnavailable ? ` (skipped: ${sshHostsUnavailable})` : ""}`, () => {
  live("creates (making the socket directory 0700 on the host), probes all sessions in one round trip, captures and kills", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a"])
      const a = pool.hosts[0]!
      const data = yield* tempDir("orch-hosts-data-")
      const { counted, trips } = counting(yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(data, "ssh") }))
      const tmux = makeRemoteTmux(counted, "a")
      const spec = (sessionId: string) => ({
        sessionId,
        workingDir: a.home,
        command: `echo "on $(id -un) in $(pwd) token=$SECRET_TOKEN gone=\${ORCH_UNSET:-unset}"; while IFS= read -r line; do echo "got: $line"; done`,
        env: { SECRET_TOKEN: "t0k'en $x", ORCH_UNSET: "set" },
        unsetEnv: ["ORCH_UNSET"]
      })
      const one = yield* tmux.create(spec("w-1"))
      const two = yield* tmux.create(spec("w-2"))
      assert.strictEqual(a.shell(`stat -c %a ${a.home}/.orchestrator/tmux`).trim(), "700")
      assert.deepStrictEqual(a.shell(`ls ${a.home}/.orchestrator/tmux`).trim().split("\n"), ["default"], "the environment files were consumed")
      assert.isFalse(a.shell(`ps -u ${a.user} -o args`).includes("t0k"), "no secret on the command lines of the host user")
      assert.include(yield* screenShows(tmux.capture(one), "token="), `on ${a.user} in ${a.home} token=t0k'en $x gone=unset`)

      // A message typed in and confirmed taken, its text only on the script's stdin.
      yield* tmux.send(two, "hello 'quoted' $HOME `x`")
      assert.include(yield* screenShows(tmux.capture(two), "got: hello"), "got: hello 'quoted' $HOME `x`")

      trips.clear()
      const probed = yield* tmux.probe([one, two, { ...one, id: "w-9" }])
      assert.deepStrictEqual([...probed].map(([id, liveness]) => [id, liveness._tag]), [["w-1", "Alive"], ["w-2", "Alive"], ["w-9", "Gone"]])
      assert.strictEqual(trips.get("a"), 1, "one round trip for all of the host's sessions")
      // With a rider (the supervisor's activity read): the same one round trip, its output beside the liveness.
      trips.clear()
      const ridden = yield* tmux.probeWith([one, two], "echo \"rider on $(id -un)\"\n")
      assert.deepStrictEqual([...ridden.liveness].map(([id, liveness]) => [id, liveness._tag]), [["w-1", "Alive"], ["w-2", "Alive"]])
      assert.strictEqual(ridden.rider, `rider on ${a.user}\n`)
      assert.strictEqual(trips.get("a"), 1)
      assert.deepStrictEqual(yield* tmux.list(), ["w-1", "w-2"])

      yield* tmux.destroy(one)
      yield* tmux.destroy(one)
      assert.deepStrictEqual([...(yield* tmux.probe([one, two]))].map(([id, liveness]) => [id, liveness._tag]), [["w-1", "Gone"], ["w-2", "Alive"]])
      yield* tmux.destroy(two)
      assert.deepStrictEqual(yield* tmux.list(), [])
      // No server left on the host: probing is still an answer (all gone), not an error.
      assert.deepStrictEqual([...(yield* tmux.probe([two]))].map(([id, liveness]) => [id, liveness._tag]), [["w-2", "Gone"]])
      const noServer = yield* tmux.probeWith([two], "echo still read\n")
      assert.deepStrictEqual([...noServer.liveness].map(([id, liveness]) => [id, liveness._tag]), [["w-2", "Gone"]])
      assert.strictEqual(noServer.rider, "still read\n", "the rider's output is kept when tmux has no server")
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a socket directory tmux would refuse on the host fails the create with the reason, and nothing runs", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a"])
      const a = pool.hosts[0]!
      const data = yield* tempDir("orch-hosts-data-")
      const connections = yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(data, "ssh") })
      a.shell(`mkdir -p -m 777 ${a.home}/shared/tmux && chmod 777 ${a.home}/shared/tmux`)
      const tmux = makeRemoteTmux(connections, "a", "~/shared")
      const error = yield* tmux.create({ sessionId: "w-1", workingDir: a.home, command: "cat", env: {}, unsetEnv: [] }).pipe(Effect.flip)
      assert.strictEqual(
        error.message,
        `multiplexer: new-session failed: on host a: tmux cannot use its socket directory ${a.home}/shared/tmux: other users have access to it; chmod 700 it`
      )
      assert.deepStrictEqual(yield* tmux.list(), [])
    }).pipe(Effect.provide(NodeServices.layer)))

  live("a host without tmux says so, for a create as for a probe", () =>
    Effect.gen(function*() {
      const pool = yield* makeSshHosts(["a"], { withoutTmux: ["a"] })
      const data = yield* tempDir("orch-hosts-data-")
      const connections = yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(data, "ssh") })
      const tmux = makeRemoteTmux(connections, "a")
      const created = yield* tmux.create({ sessionId: "w-1", workingDir: pool.hosts[0]!.home, command: "cat", env: {}, unsetEnv: [] }).pipe(Effect.flip)
      assert.strictEqual(created.message, "multiplexer: new-session failed: on host a: tmux is not installed (not found on PATH)")
      const probed = yield* tmux.probe([]).pipe(Effect.flip)
      assert.strictEqual(probed.message, "multiplexer: list-panes failed: on host a: tmux is not installed (not found on PATH)")
    }).pipe(Effect.provide(NodeServices.layer)))

  live(
    "attach: each viewer its own tmux client through the connection; a read-only one types nothing; the session outlives its viewers",
    () =>
      Effect.gen(function*() {
        const pool = yield* makeSshHosts(["a"])
        const data = yield* tempDir("orch-hosts-data-")
        const connections = yield* HostConnections.make({ hosts: pool.hosts, controlDir: join(data, "ssh") })
        const tmux = makeRemoteTmux(connections, "a")
        const handle = yield* tmux.create({
          sessionId: "w-1",
          workingDir: pool.hosts[0]!.home,
          command: `echo "ready on $(id -un)"; while IFS= read -r line; do echo "got: $line"; done`,
          env: {},
          unsetEnv: []
        })
        yield* screenShows(tmux.capture(handle), "ready on")
        /** A viewer and everything it has shown so far. */
        const viewer = (readOnly: boolean) =>
          Effect.gen(function*() {
            const terminal = yield* tmux.attach(handle, { cols: 100, rows: 30 }, { readOnly })
            let shown = ""
            yield* Effect.forkScoped(Stream.runForEach(terminal.output, (chunk) => Effect.sync(() => void (shown += chunk))))
            const shows = (text: string) =>
              Effect.sync(() => shown).pipe(
                Effect.filterOrFail((all) => all.includes(text), () => `the viewer never showed ${text}`),
                Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 })
              )
            return { terminal, shows }
          })

        yield* Effect.scoped(Effect.gen(function*() {
          const watcher = yield* viewer(true)
          const typist = yield* viewer(false)
          yield* watcher.shows("ready on")
          yield* typist.shows("ready on")
          yield* watcher.terminal.write("from the watcher\r")
          yield* typist.terminal.write("from the typist\r")
          yield* typist.shows("got: from the typist")
          yield* watcher.shows("got: from the typist")
          assert.notInclude(yield* tmux.capture(handle), "from the watcher")
        }))
        // Both clients ended with their scope; the session runs on.
        assert.deepStrictEqual([...(yield* tmux.probe([handle]))].map(([, liveness]) => liveness._tag), ["Alive"])
        yield* Effect.sync(() => pool.hosts[0]!.shell(`tmux -S "$HOME/.orchestrator/tmux/default" list-clients | wc -l`).trim()).pipe(
          Effect.filterOrFail((clients) => clients === "0", (clients) => `${clients} clients still attached`),
          Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 })
        )
        yield* tmux.destroy(handle)
      }).pipe(Effect.provide(NodeServices.layer)),
    60_000
  )
})
