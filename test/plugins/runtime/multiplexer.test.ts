import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { RuntimeHandle } from "../../../src/domain/session.ts"
import { makeMultiplexer } from "../../../src/plugins/runtime/multiplexer.ts"
import { defaultTmuxSocket } from "../../../src/plugins/runtime/tmux-socket.ts"
import { isProcessAlive, processStartTime } from "../../../src/store/process-liveness.ts"
import { tempDir } from "../../support/host.ts"
import { privateTmux, tmuxSessions } from "../../support/tmux.ts"

const ECHO_AGENT = `printf 'ready\\n'; while IFS= read -r line; do printf 'got: %s\\n' "$line"; done`

/** Each probed handle's liveness tag (what is alive, exited or gone), without its output time. */
const tags = (probed: ReadonlyMap<string, { readonly _tag: string }>) => [...probed].map(([id, liveness]) => [id, liveness._tag])

/** Polls `check` (a real process's screen) until it holds; fails after ~5 s. */
const eventually = <A, E>(effect: Effect.Effect<A, E>, check: (a: A) => boolean) =>
  effect.pipe(
    Effect.filterOrFail(check, () => "not yet" as const),
    Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 100 })
  )

describe("runtime multiplexer (real tmux)", () => {
  it.live("where tmux never ran (no socket directory), the first session makes it as tmux does and really runs", () =>
    Effect.gen(function*() {
      const tmpdir = yield* tempDir("orch-cold-tmux-")
      const socket = defaultTmuxSocket({ TMUX_TMPDIR: tmpdir })
      yield* Effect.addFinalizer(() => Effect.sync(() => execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })).pipe(Effect.ignore))
      const runtime = yield* makeMultiplexer(socket)
      const handle = yield* runtime.create({ sessionId: "c-1", workingDir: tmpdir, command: ECHO_AGENT, env: {}, unsetEnv: [] })
      assert.strictEqual(statSync(join(tmpdir, `tmux-${process.getuid!()}`)).mode & 0o777, 0o700)
      assert.deepStrictEqual(tmuxSessions(socket), ["c-1"])
      assert.deepStrictEqual(tags(yield* runtime.probe([handle])), [["c-1", "Alive"]])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a socket directory tmux would refuse fails the create with the reason, and nothing runs", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-unsafe-tmux-")
      mkdirSync(join(dir, "shared"))
      chmodSync(join(dir, "shared"), 0o777)
      const runtime = yield* makeMultiplexer(join(dir, "shared", "default"))
      const error = yield* runtime.create({ sessionId: "u-1", workingDir: dir, command: ECHO_AGENT, env: {}, unsetEnv: [] }).pipe(Effect.flip)
      assert.strictEqual(
        error.message,
        `multiplexer: new-session failed: tmux cannot use its socket directory ${
          join(dir, "shared")
        }: other users have access to it (mode 777); fix it (chmod 700, owned by you) or set TMUX_TMPDIR to a directory of your own`
      )
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("creates a detached session, delivers a message with confirmation, probes, destroys", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const cwd = yield* tempDir()
      const runtime = yield* makeMultiplexer(socket)
      const handle = yield* runtime.create({
        sessionId: "t-1",
        workingDir: cwd,
        command: `echo "cwd=$(pwd) who=$ORCH_SESSION_ID token=\${GITHUB_TOKEN:-none}"; ${ECHO_AGENT}`,
        env: { ORCH_SESSION_ID: "t-1", GITHUB_TOKEN: "leak" },
        unsetEnv: ["GITHUB_TOKEN"]
      })
      // The handle keeps the socket, and the process its pane runs (with its start time): `orch status` asks the system of it.
      const { pid, pidStart, ...made }: RuntimeHandle["data"] = handle.data
      assert.deepStrictEqual({ ...handle, data: made }, { plugin: "multiplexer", id: "t-1", data: { socket } })
      assert.strictEqual(pid, Number(execFileSync("tmux", ["-S", socket, "display-message", "-p", "-t", "=t-1:", "#{pane_pid}"], { encoding: "utf8" }).trim()))
      assert.strictEqual(pidStart, processStartTime(pid as number))
      assert.deepStrictEqual(tmuxSessions(socket), ["t-1"])

      const screen = yield* eventually(runtime.capture(handle), (s) => s.includes("ready"))
      assert.include(screen, `cwd=${cwd} who=t-1 token=none`)

      yield* runtime.send(handle, "hello world")
      yield* eventually(runtime.capture(handle), (s) => s.includes("got: hello world"))

      assert.deepStrictEqual(tags(yield* runtime.probe([handle, { ...handle, id: "t-9" }])), [["t-1", "Alive"], ["t-9", "Gone"]])
      // The look without tmux: the handle's process runs; a handle that names no process cannot be told this way.
      assert.isTrue(yield* runtime.running!(handle))
      assert.isFalse(yield* runtime.running!({ ...handle, data: { socket } }))

      yield* runtime.destroy(handle)
      yield* runtime.destroy(handle)
      assert.deepStrictEqual(tmuxSessions(socket), [])
      assert.deepStrictEqual([...(yield* runtime.probe([handle]))], [["t-1", { _tag: "Gone" }]])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("an agent that exits stays visible as Exited with its code", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const runtime = yield* makeMultiplexer(socket)
      const handle = yield* runtime.create({ sessionId: "x-1", workingDir: "/", command: "echo bye; sleep 1; exit 3", env: {}, unsetEnv: [] })
      // tmux marks the pane dead when its terminal closes and has the status once it reaps the process, a moment
      // later (or, having lost the SIGCHLD, when the probe makes it reap): a probe may see the first without the second.
      const probed = yield* eventually(runtime.probe([handle]), (m) => m.get("x-1")?._tag === "Exited" && "exitCode" in m.get("x-1")!)
      assert.deepStrictEqual(probed.get("x-1"), { _tag: "Exited", exitCode: 3 })
      assert.include(yield* runtime.capture(handle, 100), "bye")
      // The process the handle names is gone with the agent: what `orch status` sees without tmux.
      const data: RuntimeHandle["data"] = handle.data
      assert.isFalse(isProcessAlive(data.pid as number, data.pidStart as string))
      assert.isFalse(yield* runtime.running!(handle))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a message the agent never takes is reported, not dropped", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const runtime = yield* makeMultiplexer(socket)
      // An input line that shows what is typed but never acts on Enter, like an agent that cannot take input.
      const stubborn =
        `stty -icanon -echo -icrnl; printf '> '; while :; do c=$(dd bs=1 count=1 2>/dev/null); [ "$c" = "$(printf '\\r')" ] || printf '%s' "$c"; done`
      const handle = yield* runtime.create({ sessionId: "s-1", workingDir: "/", command: stubborn, env: {}, unsetEnv: [] })
      yield* eventually(runtime.capture(handle), (s) => s.includes(">"))
      const error = yield* runtime.send(handle, "ignored").pipe(Effect.flip)
      assert.strictEqual(error._tag, "DeliveryUnconfirmed")
    }).pipe(Effect.provide(NodeServices.layer)), 20_000)

  it.live("a probe tells when each pane last printed, to the second (as its end)", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const runtime = yield* makeMultiplexer(socket)
      // One agent prints now and again 2 s later; the other prints once and goes quiet.
      const talker = yield* runtime.create({ sessionId: "q-1", workingDir: "/", command: "echo one; sleep 2; echo two; sleep 60", env: {}, unsetEnv: [] })
      const quiet = yield* runtime.create({ sessionId: "q-2", workingDir: "/", command: "echo once; sleep 60", env: {}, unsetEnv: [] })
      const started = Date.now()
      const outputAt = (probed: ReadonlyMap<string, { readonly _tag: string; readonly lastOutputAt?: number }>, id: string) =>
        probed.get(id)?.lastOutputAt ?? Number.NaN
      const first = yield* runtime.probe([talker, quiet])
      assert.deepStrictEqual(tags(first), [["q-1", "Alive"], ["q-2", "Alive"]])
      for (const id of ["q-1", "q-2"]) {
        assert.isAtLeast(outputAt(first, id), started - 1000)
        assert.isAtMost(outputAt(first, id), started + 1000)
        assert.strictEqual(outputAt(first, id) % 1000, 999, "the end of the second tmux names")
      }
      yield* eventually(runtime.capture(talker), (screen) => screen.includes("two"))
      const later = yield* runtime.probe([talker, quiet])
      assert.isAtLeast(outputAt(later, "q-1") - outputAt(first, "q-1"), 1000, "its second line moved its output time")
      assert.strictEqual(outputAt(later, "q-2"), outputAt(first, "q-2"), "nothing new from the quiet one")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("probing with no tmux server running says Gone, not an error", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const runtime = yield* makeMultiplexer(socket)
      const probed = yield* runtime.probe([{ plugin: "multiplexer", id: "a-1", data: {} }])
      assert.deepStrictEqual(probed.get("a-1"), { _tag: "Gone" })
    }).pipe(Effect.provide(NodeServices.layer)))
})
