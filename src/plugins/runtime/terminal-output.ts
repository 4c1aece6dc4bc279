/**
 * One viewer's side of a terminal (see `Terminal` in src/domain/terminal.ts): the chunks a pty hands its
 * callbacks, queued until the viewer pulls them, and the end. A viewer that stops pulling gets the pty paused
 * when the terminal is its own, and is dropped when the terminal is shared (it cannot wait for one viewer).
 * Made in the viewer's Scope: when that closes, the output ends.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { TerminalBehind } from "../../domain/terminal.ts"

/** Past this much output waiting for the viewer, the pty is paused (resumed below half) or the viewer dropped. */
export const HIGH_WATER_BYTES = 1024 * 1024

export type WhenBehind =
  | { readonly _tag: "Pause"; readonly pause: () => void; readonly resume: () => void }
  | { readonly _tag: "Drop" }

export interface OutputPipe {
  /** From the pty's data callback. */
  readonly push: (chunk: string) => void
  /** From the pty's exit callback: the output ends after what was pushed, and `ended` says `how`. */
  readonly end: (how: string) => void
  readonly output: Stream.Stream<string, TerminalBehind>
  readonly ended: Effect.Effect<string, TerminalBehind>
}

export const makeOutputPipe = Effect.fnUntraced(function*(sessionId: string, whenBehind: WhenBehind, highWater = HIGH_WATER_BYTES) {
  const queue = yield* Queue.unbounded<string, TerminalBehind | Cause.Done>()
  // Released with the viewer: nothing more is queued for it, and its output ends.
  yield* Effect.addFinalizer(() => Effect.sync(() => Queue.endUnsafe(queue)))
  const ended = yield* Deferred.make<string, TerminalBehind>()
  let buffered = 0
  let paused = false
  const push = (chunk: string) => {
    if (chunk === "" || !Queue.offerUnsafe(queue, chunk)) return
    buffered += Buffer.byteLength(chunk)
    if (buffered <= highWater) return
    if (whenBehind._tag === "Drop") {
      const behind = new TerminalBehind({ sessionId, bufferedBytes: buffered })
      Queue.failCauseUnsafe(queue, Cause.fail(behind))
      Deferred.doneUnsafe(ended, Exit.fail(behind))
    } else if (!paused) {
      paused = true
      whenBehind.pause()
    }
  }
  const taken = (chunk: string) => {
    buffered -= Buffer.byteLength(chunk)
    if (paused && whenBehind._tag === "Pause" && buffered < highWater / 2) {
      paused = false
      whenBehind.resume()
    }
  }
  return {
    push,
    end: (how) => {
      Queue.endUnsafe(queue)
      Deferred.doneUnsafe(ended, Exit.succeed(how))
    },
    output: Stream.fromQueue(queue).pipe(Stream.tap((chunk) => Effect.sync(() => taken(chunk)))),
    ended: Deferred.await(ended)
  } satisfies OutputPipe
})
