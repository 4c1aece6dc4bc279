/**
 * The agents' signals: the lines hooks and `orch report` append to a session's activity.jsonl, read from where the
 * last read ended and handed to the session's actor as observations. It reads a session's file when its watcher
 * says it changed (at once, no subprocess) and at each probe cycle. A line its actor's full mailbox refuses is read
 * again next time: the read stops there.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { activityOf, limitOf, sourceOf } from "../src/domain/activity.ts"
import { limitKindOf } from "../src/domain/rate-limit.ts"
import { readSignalsSince } from "../src/store/activity-file.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { resetIn } from "./rules/limit-reading.ts"
import { SessionActors } from "./session-actors.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"

export interface SignalReaderShape {
  /** Hands a session's new signals (its activity file's lines since the last read) to its actor. */
  readonly deliver: (sessionId: string, now: number) => Effect.Effect<void>
}

export class SignalReader extends Context.Service<SignalReader, SignalReaderShape>()("orch/actors/SignalReader") {
  /** The reader, following the actors' file watchers for as long as the layer lives. */
  static readonly layer = Layer.effect(
    SignalReader,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const actors = yield* SessionActors
      const { loops } = yield* SupervisorLoops

      const deliver = Effect.fnUntraced(function*(sessionId: string, now: number) {
        const entry = actors.entry(sessionId)
        if (entry === undefined) return
        const { reading, record } = entry
        const { signals, offset } = readSignalsSince(store.paths.activity(record.projectId, sessionId), reading.offset)
        for (const { signal, end } of signals) {
          const activity = activityOf(signal)
          if (activity !== undefined) {
            const parsed = signal.ts !== undefined ? Date.parse(signal.ts) : Number.NaN
            const at = Number.isNaN(parsed) ? now : parsed
            const by = sourceOf(signal)
            const limit = limitOf(signal)
            const resetAt = resetIn(record, limit, at)
            const kind = limit === undefined ? undefined : limitKindOf(limit)
            const delivered = yield* actors.observe(sessionId, {
              _tag: "Signal",
              by,
              activity,
              at,
              offset: end,
              ...(signal.report !== undefined ? { report: signal.report } : {}),
              ...(signal.note !== undefined ? { note: signal.note } : {}),
              // A hook or a report of a limit comes when the agent's turn ended on it: it gave up.
              ...(limit !== undefined ? { limit, retrying: false } : {}),
              ...(kind !== undefined ? { kind } : {}),
              ...(resetAt !== undefined ? { resetAt } : {})
            })
            if (!delivered) return
            reading.word = { by, at }
          }
          reading.offset = end
        }
        reading.offset = offset
      })

      yield* actors.woken.pipe(
        Effect.flatMap((sessionId) => Effect.flatMap(Clock.currentTimeMillis, (now) => deliver(sessionId, now))),
        loops.signals.forever,
        Effect.forkScoped
      )
      return SignalReader.of({ deliver })
    })
  )
}
