/** The in-memory runtime of orch/testing, seen the ways a supervisor's test needs to see it. */
import * as Effect from "effect/Effect"
import type { Liveness } from "../../src/plugins/runtime/Runtime.ts"
import type { TestRuntime } from "../../src/testing/index.ts"

/** `runtime`, counting the captures of its screens (how often the supervisor read one). */
export const countingCaptures = (runtime: TestRuntime) => {
  let count = 0
  const counted: TestRuntime = {
    ...runtime,
    capture: (handle, scrollback) => Effect.tap(runtime.capture(handle, scrollback), () => Effect.sync(() => void count++))
  }
  return { runtime: counted, captures: () => count }
}

/**
 * `runtime` as one that cannot tell when a terminal last printed (a runtime whose probe has no output time): what an
 * agent does is then only what it says (its hooks, `orch report`) and its screen, never quiescence.
 */
export const withoutOutputTimes = (runtime: TestRuntime): TestRuntime => ({
  ...runtime,
  probe: (handles) =>
    Effect.map(
      runtime.probe(handles),
      (seen) => new Map([...seen].map(([id, liveness]): [string, Liveness] => [id, liveness._tag === "Alive" ? { _tag: "Alive" } : liveness]))
    )
})
