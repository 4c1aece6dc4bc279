/**
 * The wait for an agent's ready signal (agent-start.ts `waitUntilReady`) on TestClock: an agent up at once is seen within
 * tens of milliseconds, not a whole poll later; one that never shows its prompt fails after 60 s; one that exits first
 * fails with what it printed. And the look at an agent with no ready signal (`watchStart`): 150 ms after its start,
 * by the runtime's own look at its process where it has one, else by a probe.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import { makeTestRuntime } from "../../src/plugins/runtime/Runtime.ts"
import { waitUntilReady, watchStart } from "../../src/sessions/agent-start.ts"

const agent = { isReadyForInput: (screen: string) => screen.includes("> ready") }

const started = Effect.gen(function*() {
  const runtime = makeTestRuntime()
  const handle = yield* runtime.create({ sessionId: "app-1", workingDir: "/w", command: "agent", env: {}, unsetEnv: [] })
  const waiting = yield* Effect.forkChild(Effect.result(waitUntilReady(runtime, agent, handle)), { startImmediately: true })
  return { runtime, waiting }
})

/** Moves the clock `ms` and says whether the wait has ended. */
const after = (waiting: Fiber.Fiber<unknown>, ms: number) => Effect.andThen(TestClock.adjust(ms), Effect.sync(() => waiting.pollUnsafe() !== undefined))

describe("waiting for an agent's ready signal", () => {
  it.effect("an agent ready 25 ms after its start is seen at the third look (30 ms), not a 100 ms poll later", () =>
    Effect.gen(function*() {
      const { runtime, waiting } = yield* started
      assert.isFalse(yield* after(waiting, 25))
      yield* runtime.print("app-1", "> ready")
      assert.isTrue(yield* after(waiting, 5), "looks at 0, 10 and 30 ms")
      assert.strictEqual((yield* Fiber.join(waiting))._tag, "Success")
    }))

  it.effect("the looks slow to one every 100 ms; an agent that never shows its prompt fails after 60 s", () =>
    Effect.gen(function*() {
      const { runtime, waiting } = yield* started
      assert.isFalse(yield* after(waiting, 150))
      yield* runtime.print("app-1", "> ready")
      // Looks at 0, 10, 30, 70, 150, 250 ms: the one at 150 came just before the print.
      assert.isFalse(yield* after(waiting, 99))
      assert.isTrue(yield* after(waiting, 1))

      const never = yield* started
      assert.isFalse(yield* after(never.waiting, 59_999))
      assert.isTrue(yield* after(never.waiting, 100))
      const result = yield* Fiber.join(never.waiting)
      assert.deepStrictEqual(result._tag === "Failure" ? result.failure : undefined, "the agent did not show its input prompt within 60 s")
    }))

  it.effect("an agent that exits before it is ready fails the wait with how it ended and what it printed", () =>
    Effect.gen(function*() {
      const { runtime, waiting } = yield* started
      yield* runtime.print("app-1", "error: unknown flag --fast")
      yield* runtime.exit("app-1", 2)
      assert.isTrue(yield* after(waiting, 10))
      const result = yield* Fiber.join(waiting)
      assert.deepStrictEqual(
        result._tag === "Failure" ? result.failure : undefined,
        "the agent exited with status 2 before it was ready; it printed:\n  > error: unknown flag --fast"
      )
    }))
})

describe("the look at an agent with no ready signal", () => {
  const watched = (running: boolean) =>
    Effect.gen(function*() {
      const runtime = makeTestRuntime()
      const handle = yield* runtime.create({ sessionId: "app-1", workingDir: "/w", command: "agent", env: {}, unsetEnv: [] })
      let probes = 0
      const looked = {
        ...runtime,
        running: () => Effect.succeed(running),
        probe: (handles: Parameters<typeof runtime.probe>[0]) => (probes++, runtime.probe(handles))
      }
      const watching = yield* Effect.forkChild(Effect.result(watchStart(looked, handle)), { startImmediately: true })
      return { runtime, watching, probes: () => probes }
    })

  it.effect("an agent whose process plainly runs is seen up after 150 ms without asking the runtime's server", () =>
    Effect.gen(function*() {
      const { watching, probes } = yield* watched(true)
      assert.isFalse(yield* after(watching, 149))
      assert.isTrue(yield* after(watching, 1))
      assert.strictEqual((yield* Fiber.join(watching))._tag, "Success")
      assert.strictEqual(probes(), 0)
    }))

  it.effect("when that look cannot tell, the probe says how the agent ended, with what it printed", () =>
    Effect.gen(function*() {
      const { runtime, watching, probes } = yield* watched(false)
      yield* runtime.print("app-1", "bad flag")
      yield* runtime.exit("app-1", 2)
      assert.isTrue(yield* after(watching, 150))
      const result = yield* Fiber.join(watching)
      assert.strictEqual(result._tag === "Failure" ? result.failure : undefined, "the agent exited with status 2 as it started; it printed:\n  > bad flag")
      assert.strictEqual(probes(), 1)
    }))
})
