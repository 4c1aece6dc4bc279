/**
 * `attach` on the built-in runtimes, against the real things: tmux on a private socket (a client per viewer)
 * and node-pty (the `process` runtime's shared pty). Output out, input in, resize, read-only, release.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { execFileSync } from "node:child_process"
import type { RuntimeHandle } from "../../../src/domain/session.ts"
import type { AttachOptions, Terminal } from "../../../src/domain/terminal.ts"
import { makeMultiplexer } from "../../../src/plugins/runtime/multiplexer.ts"
import { makeProcessRuntime, makeProcessTerminals } from "../../../src/plugins/runtime/process.ts"
import type { RuntimeShape } from "../../../src/plugins/runtime/Runtime.ts"
import { eventually } from "../../support/eventually.ts"
import { privateTmux } from "../../support/tmux.ts"

/** An agent that answers each line, tells its terminal's size on `size`, and exits 3 on `end`. */
const AGENT = `echo ready; while IFS= read -r line; do case "$line" in size) echo "size: $(stty size)";; end) exit 3;; *) echo "got: $line";; esac; done`

const plain = (raw: string) => raw.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78M]|\x1b\][^\x07]*\x07/g, "")

interface Watched {
  readonly terminal: Terminal
  readonly scope: Scope.Closeable
  readonly output: () => string
  /** Completes when the output ends. */
  readonly done: Fiber.Fiber<void, unknown>
}

/** Attaches in a scope of its own (closed by the test, or at the end), collecting what the terminal prints. */
const watch = (runtime: RuntimeShape, handle: RuntimeHandle, cols: number, rows: number, options: AttachOptions) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const terminal = yield* runtime.attach!(handle, { cols, rows }, options).pipe(Scope.provide(scope))
    let output = ""
    const done = yield* Stream.runForEach(terminal.output, (chunk) => Effect.sync(() => (output += chunk))).pipe(Effect.forkScoped)
    return { terminal, scope, output: () => plain(output), done } satisfies Watched
  })

describe("runtime attach (real tmux, real node-pty)", () => {
  it.live("multiplexer: each viewer its own tmux client at its size; input, resize, read-only, release, end", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const runtime = yield* makeMultiplexer(socket)
      const handle = yield* runtime.create({ sessionId: "v-1", workingDir: "/", command: AGENT, env: {}, unsetEnv: [] })
      const clients = () =>
        execFileSync("tmux", ["-S", socket, "list-clients", "-t", "=v-1", "-F", "#{client_width}x#{client_height} #{client_flags}"], { encoding: "utf8" })
          .trim().split("\n").filter(Boolean)

      const laptop = yield* watch(runtime, handle, 120, 40, { readOnly: false })
      yield* eventually("the laptop's screen", () => laptop.output().includes("ready"))
      yield* eventually("a client at the laptop's size", () => clients().length === 1 && clients()[0]!.startsWith("120x40 "))
      yield* laptop.terminal.write("hello\r")
      const pane = () => execFileSync("tmux", ["-S", socket, "capture-pane", "-p", "-t", "=v-1:"], { encoding: "utf8" })
      yield* eventually("the answer in the pane", () => pane().includes("got: hello"))
      yield* eventually("the answer on the laptop", () => laptop.output().includes("got: hello"))
      yield* laptop.terminal.resize(100, 30)
      yield* eventually("the laptop's client resized", () => clients().some((c) => c.startsWith("100x30 ")))

      const watcher = yield* watch(runtime, handle, 50, 20, { readOnly: true })
      yield* eventually("the read-only client", () => clients().some((c) => c.startsWith("50x20 ") && c.includes("read-only")))
      yield* watcher.terminal.write("from the watcher\r")
      yield* laptop.terminal.write("after the watcher\r")
      yield* eventually("the watcher sees the laptop's line", () => watcher.output().includes("got: after the watcher"))
      assert.notInclude(yield* runtime.capture(handle, 100), "from the watcher", "a read-only viewer cannot type")

      yield* Scope.close(watcher.scope, Exit.void)
      yield* eventually("the watcher's client gone", () => clients().length === 1)
      yield* Fiber.join(watcher.done)
      assert.deepStrictEqual(
        execFileSync("tmux", ["-S", socket, "list-sessions", "-F", "#{session_name}"], { encoding: "utf8" }).trim(),
        "v-1",
        "the session runs on"
      )

      yield* runtime.destroy(handle)
      const how = yield* laptop.terminal.ended
      assert.match(how, /exited|lost|session/, `tmux's last word: ${how}`)
      yield* Fiber.join(laptop.done)
    }).pipe(Effect.provide(NodeServices.layer), Effect.scoped), 30_000)

  it.live("multiplexer: a session that is not there ends the viewer at once, saying so", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const runtime = yield* makeMultiplexer(socket)
      yield* runtime.create({ sessionId: "v-2", workingDir: "/", command: AGENT, env: {}, unsetEnv: [] })
      const ghost = yield* watch(runtime, { plugin: "multiplexer", id: "v-9", data: { socket } }, 80, 24, { readOnly: false })
      assert.match(yield* ghost.terminal.ended, /v-9/, "tmux says what it could not find")
    }).pipe(Effect.provide(NodeServices.layer), Effect.scoped), 20_000)

  it.live("process: one shared pty; a viewer gets what it printed so far, then live; read-only viewers neither type nor resize", () =>
    Effect.gen(function*() {
      const runtime = makeProcessRuntime(yield* makeProcessTerminals({ supervisor: true }))
      const handle = yield* Effect.acquireRelease(
        runtime.create({ sessionId: "pv-1", workingDir: "/", command: AGENT, env: { PATH: process.env.PATH ?? "" }, unsetEnv: [] }),
        (handle) => Effect.orDie(runtime.destroy(handle))
      )
      yield* eventually("the agent", () => Effect.runSync(runtime.capture(handle)).includes("ready"))

      const first = yield* watch(runtime, handle, 100, 30, { readOnly: false })
      yield* eventually("the replay", () => first.output().includes("ready"))
      yield* first.terminal.write("size\r")
      yield* eventually("the viewer's size on the pty", () => first.output().includes("size: 30 100"))
      yield* first.terminal.resize(70, 20)
      yield* first.terminal.write("size\r")
      yield* eventually("the new size", () => first.output().includes("size: 20 70"))

      const watcher = yield* watch(runtime, handle, 40, 10, { readOnly: true })
      yield* eventually("the watcher's replay, up to now", () => watcher.output().includes("size: 20 70"))
      yield* watcher.terminal.write("from the watcher\r")
      yield* watcher.terminal.resize(30, 8)
      yield* first.terminal.write("size\r")
      yield* eventually(
        "the answer, live, on both",
        () => first.output().split("size: 20 70").length === 3 && watcher.output().split("size: 20 70").length === 3
      )
      assert.notInclude(first.output(), "from the watcher", "a read-only viewer cannot type")
      assert.notInclude(first.output(), "size: 8 30", "nor resize the shared pty")

      yield* Scope.close(watcher.scope, Exit.void)
      yield* Fiber.join(watcher.done)
      const released = watcher.output()
      yield* first.terminal.write("later\r")
      yield* eventually("the later line", () => first.output().includes("got: later"))
      assert.strictEqual(watcher.output(), released, "a released viewer hears nothing more")

      yield* first.terminal.write("end\r")
      assert.strictEqual(yield* first.terminal.ended, "the agent's process ended")
      yield* Fiber.join(first.done)
      const late = yield* Effect.flip(runtime.attach!(handle, { cols: 80, rows: 24 }, { readOnly: false }).pipe(Effect.scoped))
      assert.strictEqual(late.message, "this session has no live terminal in this supervisor")
      const none = yield* Effect.flip(runtime.attach!({ ...handle, id: "pv-9" }, { cols: 80, rows: 24 }, { readOnly: false }).pipe(Effect.scoped))
      assert.strictEqual(none._tag, "TerminalUnavailable")
    }).pipe(Effect.scoped), 30_000)
})
