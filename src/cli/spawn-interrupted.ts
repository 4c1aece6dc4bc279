/**
 * What an `orch spawn` interrupted by Ctrl-C or a signal says before it exits: the spawn finished, or was stopped and
 * undone (src/domain/spawn-fate.ts decides from the event log). Run here, the spawn's own undo has run by then; run by
 * the supervisor, which undoes it once this client goes away, its receipt is waited for, a few seconds at most.
 */
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { interruptedSpawnSentence, type SpawnAsked, spawnFate } from "../domain/spawn-fate.ts"
import { eventsAfter } from "../store/events-after.ts"
import type { SessionsWhere } from "./session-context.ts"

/** How long an interrupted spawn waits for the supervisor to say it undid (or finished) the spawn. */
export const SUPERVISOR_RECEIPT_WAIT = Duration.seconds(10)

export interface InterruptedSpawn {
  readonly eventsPath: string
  /** The event log's end when the spawn was asked for. */
  readonly from: number
  readonly asked: SpawnAsked
  /** Where the spawn ran, once it was asked for. */
  readonly begun: SessionsWhere | undefined
  /** The session, when the spawn's answer came back before the interruption. */
  readonly finished: string | undefined
}

export const tellInterruptedSpawn = Effect.fnUntraced(function*(spawn: InterruptedSpawn) {
  const read = Effect.sync(() => spawnFate(eventsAfter(spawn.eventsPath, spawn.from), spawn.asked))
  const fate = spawn.finished !== undefined
    ? { _tag: "Finished" as const, sessionId: spawn.finished }
    : spawn.begun === "supervisor"
    ? yield* read.pipe(
      Effect.flatMap((fate) => (fate._tag === "Unknown" ? Effect.fail("not yet" as const) : Effect.succeed(fate))),
      Effect.retry({ schedule: Schedule.spaced("100 millis") }),
      Effect.timeoutOrElse({ duration: SUPERVISOR_RECEIPT_WAIT, orElse: () => read }),
      Effect.catch(() => read)
    )
    : yield* read
  yield* Console.error(`orch: ${interruptedSpawnSentence(spawn.asked, spawn.begun !== undefined, fate)}`)
})
