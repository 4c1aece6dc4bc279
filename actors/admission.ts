/**
 * Admission (src/sessions/queueing.ts, DESIGN.md principle 9): rounds that start what the rule admits (side by side,
 * each decided once the one before has its first record), whenever something changed (a session ended, a PR merged, the queue grew) and ADMISSION_INTERVAL apart
 * otherwise. A round remembers, and writes for `orch status`, what waits and on what; tells people of queued work
 * that could never start and of places newly held back; and starts the actors of what it started. None once
 * admission is halted (`orch stop`).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Semaphore from "effect/Semaphore"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { liftHolds } from "../src/sessions/queueing.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import { writeAdmissionState } from "../src/store/admission-file.ts"
import type { StoreError } from "../src/store/errors.ts"
import { EventLog } from "../src/store/EventLog.ts"
import type { LockTimeout } from "../src/store/lock.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { droppedNotice, holdNotice } from "./queue-notices.ts"
import { SessionActors } from "./session-actors.ts"

/** Admission rounds run whenever something changed, and this often otherwise. */
export const ADMISSION_INTERVAL = "3 seconds"

export interface AdmissionShape {
  /** One round; one at a time. */
  readonly round: Effect.Effect<void, unknown>
  /** Waits until something changed (`soon`), or ADMISSION_INTERVAL passed. */
  readonly due: Effect.Effect<void>
  /** Something changed: the admission loop runs a round now. */
  readonly soon: Effect.Effect<void>
  /**
   * Stops admitting for good (`orch stop`, before anything is killed): no round starts, and one under way is cancelled
   * (its spawn undoes what it made and its entry goes back where it was); answers once it has ended.
   */
  readonly halt: Effect.Effect<void>
  /** Queue entry id → what it waits on, as the last round left it. */
  readonly waiting: () => ReadonlyMap<string, string>
  /**
   * After a reload changed these projects (or the hosts): whatever held their queued work back may be fixed, so their
   * holds end and admission looks again now.
   */
  readonly retryHeld: (projectIds: ReadonlyArray<string>) => Effect.Effect<void, StoreError | LockTimeout>
}

export class Admission extends Context.Service<Admission, AdmissionShape>()("orch/actors/Admission") {
  static readonly layer = Layer.effect(
    Admission,
    Effect.gen(function*() {
      const manager = yield* SessionManager
      const router = yield* NotifierRouter
      const configs = yield* ConfigSource
      const store = yield* SessionStore
      const events = yield* EventLog
      const actors = yield* SessionActors
      const admitting = yield* Semaphore.make(1)
      const wake = yield* Queue.sliding<void>(1)
      let waiting: ReadonlyMap<string, string> = new Map()
      let halted = false
      let current: Fiber.Fiber<void, unknown> | undefined

      const body = Effect.gen(function*() {
        const { waiting: left, admitted, dropped, held } = yield* manager.admit()
        waiting = new Map(left.map((w) => [w.entry.id, w.reason]))
        // Queued work that could never start left the queue: people hear of it, not only the event log.
        for (const { entry, reason } of dropped) yield* router.notify(yield* droppedNotice(entry, reason))
        // A place that cannot start a project's sessions is told once, when it is first held back; its work waits.
        const hostsConfigured = Object.keys((yield* configs.current).hosts).length > 0
        for (const { hold } of held.filter((news) => news.fresh)) yield* router.notify(yield* holdNotice(hold, hostsConfigured))
        yield* writeAdmissionState(store.paths.root, {
          pid: process.pid,
          at: new Date(yield* Clock.currentTimeMillis).toISOString(),
          waiting: Object.fromEntries(waiting)
        })
        // The sessions it started get their actors now, not at the next probe cycle. A round that started none (every
        // round at rest, every 3 s) reads no records.
        if (admitted > 0) yield* actors.startLive
      })

      const round = admitting.withPermits(1)(Effect.gen(function*() {
        if (halted) return
        const fiber = yield* Effect.forkChild(body)
        current = fiber
        const exit = yield* Fiber.await(fiber)
        current = undefined
        // Halted meanwhile: the round was cancelled and put its entry back; nothing more to say.
        if (Exit.isFailure(exit) && !(Exit.hasInterrupts(exit) && halted)) return yield* Effect.failCause(exit.cause)
      }))

      const halt = Effect.gen(function*() {
        halted = true
        const under = current
        if (under !== undefined) yield* Fiber.interrupt(under)
        yield* admitting.withPermits(1)(Effect.void)
      })

      const soon = Effect.asVoid(Queue.offer(wake, undefined))
      const retryHeld = Effect.fn("Admission.retryHeld")(function*(projectIds: ReadonlyArray<string>) {
        let lifted = 0
        for (const id of projectIds) lifted += yield* liftHolds(store.paths.root, events, id, undefined, "its config changed")
        if (lifted > 0) yield* soon
      })

      return Admission.of({
        round,
        due: Effect.asVoid(Effect.timeoutOption(Queue.take(wake), ADMISSION_INTERVAL)),
        soon,
        halt,
        waiting: () => waiting,
        retryHeld
      })
    })
  )
}
