/** One viewer's output pipe: a viewer that stops pulling pauses a terminal of its own, and is dropped from a shared one. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeOutputPipe } from "../../../src/plugins/runtime/terminal-output.ts"

describe("terminal output pipe", () => {
  it.effect("a terminal of its own is paused past the high water, and resumed once the viewer took it below half", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const pipe = yield* makeOutputPipe("s-1", { _tag: "Pause", pause: () => calls.push("pause"), resume: () => calls.push("resume") }, 10)
      pipe.push("12345")
      pipe.push("67890")
      assert.deepStrictEqual(calls, [], "at the high water, not past it")
      pipe.push("abc")
      pipe.push("def")
      assert.deepStrictEqual(calls, ["pause"], "paused once")
      pipe.end("done")
      const seen: Array<string> = []
      const taken = yield* pipe.output.pipe(Stream.tap((chunk) => Effect.sync(() => seen.push(`${chunk} ${calls.join(",")}`))), Stream.runCollect)
      assert.deepStrictEqual(taken, ["12345", "67890", "abc", "def"], "all of it, then the end")
      assert.deepStrictEqual(seen, ["12345 pause", "67890 pause", "abc pause,resume", "def pause,resume"], "resumed once 3 bytes were left: below half")
      assert.strictEqual(yield* pipe.ended, "done")
    }).pipe(Effect.scoped))

  it.effect("a viewer of a shared terminal that falls behind is dropped: its end fails at once, its output after what it had", () =>
    Effect.gen(function*() {
      const pipe = yield* makeOutputPipe("s-2", { _tag: "Drop" }, 10)
      pipe.push("1234567890")
      pipe.push("x")
      const behind = yield* Effect.flip(pipe.ended)
      assert.strictEqual(behind._tag, "TerminalBehind")
      assert.strictEqual(behind.bufferedBytes, 11)
      pipe.push("ignored")
      const exit = yield* Effect.flip(pipe.output.pipe(Stream.runCollect))
      assert.strictEqual(exit._tag, "TerminalBehind")
    }).pipe(Effect.scoped))

  it.effect("released with its scope: the output ends", () =>
    Effect.gen(function*() {
      const pipe = yield* makeOutputPipe("s-3", { _tag: "Drop" }).pipe(Effect.scoped)
      pipe.push("after release")
      assert.deepStrictEqual(yield* pipe.output.pipe(Stream.runCollect), [])
    }))
})
