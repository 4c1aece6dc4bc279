/**
 * `attach` of a runtime plugin module: its node-pty-like terminal (here a real node-pty) seen as the port's
 * Terminal; closed when the viewer leaves; an answer of another shape, or no `attach` at all, says so.
 */
import { assert, describe, it } from "@effect/vitest"
import { type IPty, spawn } from "@lydell/node-pty"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { runtimeFromPlugin } from "../../../src/plugins/adapters.ts"
import type { RuntimePluginTerminal } from "../../../src/plugins/contract/runtime.ts"
import { eventually } from "../../support/eventually.ts"

const loaded = (component: Record<string, unknown>) => ({
  manifest: { name: "fx", slot: "runtime" as const, description: "a runtime with a terminal", version: "1.0.0" },
  component: { create: () => ({ id: "r-1" }), sendCommand: () => undefined, destroy: () => undefined, ...component }
})
const handle = { plugin: "fx", id: "r-1", data: {} }

/** A terminal as a plugin module would give it: a pty of its own per viewer, running a line-answering shell. */
const ptyTerminal = (ptys: Array<IPty>, cols: number, rows: number): RuntimePluginTerminal => {
  const pty = spawn("/bin/sh", ["-c", `echo ready; while IFS= read -r l; do [ "$l" = size ] && echo "size: $(stty size)" || echo "got: $l"; done`], {
    cols,
    rows,
    env: { PATH: process.env.PATH ?? "" }
  })
  ptys.push(pty)
  return {
    onData: (listener) => {
      const subscription = pty.onData(listener)
      return () => subscription.dispose()
    },
    onExit: (listener) => {
      const subscription = pty.onExit(({ exitCode }) => listener(`exit ${exitCode}`))
      return () => subscription.dispose()
    },
    write: (data) => pty.write(data),
    resize: (c, r) => pty.resize(c, r),
    pause: () => pty.pause(),
    resume: () => pty.resume(),
    close: () => pty.kill()
  }
}

describe("runtime plugin modules: attach", () => {
  it.live("a plugin's terminal: output, input, resize, closed with the viewer; its end with what the plugin said", () =>
    Effect.gen(function*() {
      const ptys: Array<IPty> = []
      const asked: Array<unknown> = []
      const runtime = runtimeFromPlugin(loaded({
        attach: (theirs: unknown, size: { cols: number; rows: number }, options: unknown) => {
          asked.push(theirs, size, options)
          return Promise.resolve(ptyTerminal(ptys, size.cols, size.rows))
        }
      }))
      assert.isFunction(runtime.attach)
      const scope = yield* Scope.make()
      const terminal = yield* runtime.attach!(handle, { cols: 90, rows: 25 }, { readOnly: false }).pipe(Scope.provide(scope))
      assert.deepStrictEqual(asked, [{ id: "r-1", runtimeName: "fx", data: {} }, { cols: 90, rows: 25 }, { readOnly: false }])
      let output = ""
      const done = yield* Stream.runForEach(terminal.output, (chunk) => Effect.sync(() => (output += chunk))).pipe(Effect.forkChild)
      yield* eventually("the plugin's output", () => output.includes("ready"))
      yield* terminal.resize(70, 20)
      yield* terminal.write("size\r")
      yield* eventually("input and resize reached it", () => output.includes("size: 20 70"))

      const exited = new Promise<void>((resolve) => ptys[0]!.onExit(() => resolve()))
      yield* Scope.close(scope, Exit.void)
      yield* Effect.promise(() => exited)
      yield* Fiber.join(done)

      const second = yield* runtime.attach!(handle, { cols: 80, rows: 24 }, { readOnly: false })
      yield* second.write("\x04")
      assert.strictEqual(yield* second.ended, "exit 0")
    }).pipe(Effect.scoped), 20_000)

  it.live("a read-only viewer's input and size never reach the plugin", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const runtime = runtimeFromPlugin(loaded({
        attach: () => ({
          onData: () => () => undefined,
          onExit: () => () => undefined,
          write: (data: string) => calls.push(`write ${data}`),
          resize: (cols: number, rows: number) => calls.push(`resize ${cols}x${rows}`)
        })
      }))
      const terminal = yield* runtime.attach!(handle, { cols: 80, rows: 24 }, { readOnly: true })
      yield* terminal.write("x")
      yield* terminal.resize(10, 10)
      assert.deepStrictEqual(calls, [])
    }).pipe(Effect.scoped))

  it.live("no attach: no terminal; a terminal of another shape, or an attach that throws, says what is wrong", () =>
    Effect.gen(function*() {
      assert.isUndefined(runtimeFromPlugin(loaded({})).attach)
      const closed: Array<string> = []
      const odd = runtimeFromPlugin(loaded({ attach: () => ({ onData: "no", close: () => closed.push("closed") }) }))
      const error = yield* Effect.flip(odd.attach!(handle, { cols: 80, rows: 24 }, { readOnly: false }).pipe(Effect.scoped))
      assert.strictEqual(error._tag, "TerminalUnavailable")
      assert.match(error.message, /^the fx runtime cannot show this terminal: attach returned an unexpected value: onData: Expected a function/)
      assert.deepStrictEqual(closed, ["closed"], "what it gave is closed all the same")
      const throwing = runtimeFromPlugin(loaded({
        attach: () => {
          throw new Error("no pty left")
        }
      }))
      const thrown = yield* Effect.flip(throwing.attach!(handle, { cols: 80, rows: 24 }, { readOnly: false }).pipe(Effect.scoped))
      assert.strictEqual(thrown.message, "the fx runtime cannot show this terminal: no pty left")
    }))
})
