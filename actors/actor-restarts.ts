/**
 * Runs a session actor's body and restarts it after a crash as rules/restart-policy.ts decides: after a back-off on
 * the Clock, or, after too many crashes within the window, never again (`escalate`). Each crash is logged with its
 * cause. Interruption (the actor stopped) ends it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { restartDecision } from "./rules/restart-policy.ts"

export const superviseActor = (
  sessionId: string,
  body: Effect.Effect<never, unknown>,
  escalate: (reason: string) => Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    let crashes: ReadonlyArray<number> = []
    for (;;) {
      const exit = yield* Effect.exit(body)
      if (Exit.isSuccess(exit) || (Exit.hasInterrupts(exit) && !Exit.hasFails(exit) && !Exit.hasDies(exit))) return
      const decision = restartDecision(crashes, yield* Clock.currentTimeMillis)
      if (decision._tag === "Escalate") {
        yield* Effect.logError(`the actor of ${sessionId} crashed; ${decision.reason}, so orch stops watching the session`, exit.cause)
        return yield* escalate(decision.reason)
      }
      yield* Effect.logError(`the actor of ${sessionId} crashed; it starts again in ${decision.delayMs / 1000} s`, exit.cause)
      crashes = decision.crashes
      yield* Effect.sleep(decision.delayMs)
    }
  })
