/**
 * What a session's actor takes from its mailbox, one message at a time: observations (rules/lifecycle.ts), which it
 * folds into the record; commands, a person's procedures on the session (send, kill, restore, merge), which it runs
 * itself, so nothing else writes the session's record meanwhile; and drains, a receipt that everything offered
 * before was handled.
 *
 * A command, once the actor takes it, is carried out whole, even if whoever asked goes away; one whose caller went
 * away before is skipped. One still in the mailbox when the actor ends (stopped, escalated) is handed back: its
 * caller runs it, as for a session without an actor.
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import type { Observation } from "./rules/lifecycle.ts"

export interface Command {
  readonly _tag: "Command"
  /** Runs the procedure for its caller (nothing when the caller went away first). */
  readonly run: Effect.Effect<void>
  /** The actor ended before taking it: its caller runs it. */
  readonly handBack: Effect.Effect<void>
}

export interface Drain {
  readonly _tag: "Drain"
  /** Completed once the actor took it: everything offered before was handled. */
  readonly done: Deferred.Deferred<void>
}

export type ActorMessage = Observation | Command | Drain

/** A session actor's mailbox; it ends with the actor (Done), after which offers answer false. */
export type Mailbox = Queue.Queue<ActorMessage, Cause.Done>

type Outcome<A, E> =
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<A, E> }
  | { readonly _tag: "HandedBack" }
  | { readonly _tag: "Abandoned" }

/**
 * Runs `effect` as a command through `mailbox` and answers its result; runs it here when the mailbox has ended (its
 * actor is gone) or hands it back.
 */
export const runCommand = <A, E>(mailbox: Mailbox, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.gen(function*() {
    const outcome = yield* Deferred.make<Outcome<A, E>>()
    const command: Command = {
      _tag: "Command",
      run: Effect.uninterruptible(Effect.flatMap(Deferred.isDone(outcome), (settled) =>
        settled ? Effect.void : Effect.flatMap(Effect.exit(effect), (exit) =>
          Deferred.succeed(outcome, { _tag: "Done", exit })))),
      handBack: Effect.asVoid(Deferred.succeed(outcome, { _tag: "HandedBack" }))
    }
    if (!(yield* Queue.offer(mailbox, command))) {
      return yield* effect
    }
    const settled = yield* Deferred.await(outcome).pipe(Effect.onInterrupt(() =>
      Effect.asVoid(Deferred.succeed(outcome, { _tag: "Abandoned" }))
    ))
    return yield* settled._tag === "Done" ? settled.exit : settled._tag === "HandedBack" ? effect : Effect.interrupt
  })

/** Waits until the actor has handled everything offered to `mailbox` before (at once when it has ended). */
export const drain = (mailbox: Mailbox): Effect.Effect<void> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<void>()
    if (yield* Queue.offer(mailbox, { _tag: "Drain", done })) yield* Deferred.await(done)
  })

/** When the actor ends: no more messages are taken in; commands still waiting go back to their callers, drains complete. */
export const closeMailbox = (mailbox: Mailbox): Effect.Effect<void> =>
  Effect.andThen(
    Queue.end(mailbox),
    Effect.suspend(function handBackAll(): Effect.Effect<void> {
      return Effect.flatMap(Queue.clear(mailbox), (left) =>
        left.length === 0 ? Effect.void : Effect.andThen(
          Effect.forEach(
            left,
            (message) => message._tag === "Command" ? message.handBack : message._tag === "Drain" ? Deferred.succeed(message.done, undefined) : Effect.void,
            {
              discard: true
            }
          ),
          Effect.suspend(handBackAll)
        ))
    })
  )
