/**
 * Keeps the supervisor's loops going. A step that fails (a typed error or a defect) is recorded as a
 * `supervisor.error` event and answered with a backoff (loop-health.ts); a loop that keeps failing escalates once
 * per episode: a `supervisor.escalated` event naming the loop and an urgent notification. Interruption (the
 * supervisor stopping) is not a failure: it ends the loop.
 *
 * The log gets one line per failure it is told of (tellFailure: a new streak, a new reason, then fewer and fewer of
 * the same), saying what failed and what orch does next. An expected failure (a typed error: a host that answers 404,
 * a network down) is that line alone; a defect (a bug in orch or a plugin) adds its full cause, for whoever debugs.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { NewEvent } from "../src/domain/event.ts"
import { newNotification, type Notification } from "../src/domain/notification.ts"
import { reasonOf } from "../src/domain/reason.ts"
import type { EventLogShape } from "../src/store/EventLog.ts"
import { afterFailure, afterSuccess, DEFAULT_LOOP_POLICY, HEALTHY, type LoopHealth, type LoopPolicy, tellFailure } from "./rules/loop-health.ts"

export interface LoopGuardDeps {
  readonly events: EventLogShape
  readonly notify: (notification: Notification) => Effect.Effect<void>
  /** The supervisor's log, named in escalations. */
  readonly logPath: string
}

export interface GuardedLoop {
  /** Runs `step` once; a failure is reported, with `then` saying what happens next (e.g. "orch tries again at the next probe cycle"). */
  readonly attempt: <E, R>(step: Effect.Effect<void, E, R>, then: string) => Effect.Effect<void, never, R>
  /** Runs `step` for as long as the calling fiber lives: `every` after a success, the backoff (at least `every`) after a failure. */
  readonly forever: <E, R>(step: Effect.Effect<void, E, R>, every?: Effect.Effect<number>) => Effect.Effect<never, never, R>
}

/** A round made of parts (one per project, say) of which some failed; the others did their work. */
export class PartsFailed extends Schema.TaggedError<PartsFailed>()("PartsFailed", {
  parts: Schema.Array(Schema.Struct({ name: Schema.String, reason: Schema.String }))
}) {
  override get message() {
    return this.parts.map((part) => `${part.name}: ${part.reason}`).join("; ")
  }
}

const waitText = (ms: number) => ms < 1_000 ? `${ms} ms` : ms < 120_000 ? `${Math.round(ms / 1_000)} s` : `${Math.round(ms / 60_000)} min`

/** A cause with a defect in it (not only typed failures or interruptions). */
const isDefect = (cause: Cause.Cause<unknown>) => cause.reasons.some(Cause.isDieReason)

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** A guard for the loop named `loop` ("PR poll"); each call keeps its own count of failures. */
export const makeLoopGuard = (deps: LoopGuardDeps) => (loop: string, policy: LoopPolicy = DEFAULT_LOOP_POLICY): GuardedLoop => {
  let health: LoopHealth = HEALTHY
  /** The reason the log last gave for the current streak of failures. */
  let told: string | undefined

  // Where the event log itself cannot be written, the supervisor's log is the record.
  const record = (event: NewEvent) =>
    deps.events.append(event).pipe(
      Effect.asVoid,
      Effect.catchCause((cause) => Effect.logError(`could not record a ${event.type} event for the ${loop}`, cause))
    )

  const escalate = (reason: string, failures: LoopHealth) => {
    const how = failures.inARow >= policy.escalateAfter
      ? `${failures.inARow} times in a row`
      : `${failures.failures.length} times within ${Math.round(policy.windowMs / 60_000)} minutes`
    const message = `The ${loop} failed ${how} (last: ${reason}); orch keeps trying. Its log is ${deps.logPath}.`
    return Effect.andThen(
      record({ type: "supervisor.escalated", message, data: { loop, failures: failures.failures.length, inARow: failures.inARow } }),
      Effect.flatMap(newNotification({ type: "supervisor.escalated", priority: "urgent", title: `orch: the ${loop} keeps failing`, message }), deps.notify)
    )
  }

  /** Runs `step` once and answers how long to wait before the next: `waitAfter(undefined)` after a success, `waitAfter(backoff)` after a failure. */
  const run = <E, R>(step: Effect.Effect<void, E, R>, waitAfter: (backoffMs: number | undefined) => Effect.Effect<number>, then?: string) =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(step)
      const now = yield* Clock.currentTimeMillis
      if (Exit.isSuccess(exit)) {
        const failed = health.inARow
        const after = afterSuccess(health, now, policy)
        health = after.health
        told = undefined
        if (failed > 0) yield* Effect.logInfo(`the ${loop} works again, after ${failed} failure${failed === 1 ? "" : "s"} in a row`)
        return yield* waitAfter(undefined)
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      const after = afterFailure(health, now, policy)
      health = after.health
      const wait = yield* waitAfter(after.delayMs)
      const reason = reasonOf(exit.cause)
      const next = then ?? `orch tries again in ${waitText(wait)}`
      const inARow = after.health.inARow
      const telling = tellFailure(told, reason, inARow)
      if (telling !== "quiet") {
        told = reason
        const line = telling === "first"
          ? `the ${loop} failed: ${reason}; ${next}`
          : telling === "changed"
          ? `the ${loop} failed again (${inARow} in a row), now: ${reason}; ${next}`
          : `the ${loop} still fails (${inARow} in a row): ${reason}; ${next}`
        // A defect is a bug: its whole cause goes to the log. An expected failure is its line alone.
        yield* isDefect(exit.cause) ? Effect.logError(line, exit.cause) : Effect.logError(line)
      }
      yield* record({ type: "supervisor.error", message: `${capitalized(loop)} failed: ${reason}; ${next}.`, data: { loop, attempt: inARow } })
      if (after.escalate) yield* escalate(reason, after.health)
      return wait
    })

  return {
    attempt: (step, then) => Effect.asVoid(run(step, (backoff) => Effect.succeed(backoff ?? 0), then)),
    forever: (step, every = Effect.succeed(0)) =>
      Effect.forever(Effect.flatMap(
        run(step, (backoff) => Effect.map(every, (ms) => Math.max(ms, backoff ?? 0))),
        (ms) => (ms > 0 ? Effect.sleep(ms) : Effect.void)
      ))
  }
}
