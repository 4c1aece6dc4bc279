/**
 * What an `orch batch-spawn` interrupted by Ctrl-C or a signal says before it exits: which of its issues started,
 * which wait in the queue, which neither (src/store/interrupted-batch.ts reads it, src/domain/batch-fate.ts decides).
 * Run here, the batch's own undo has run by then; run by the supervisor, which undoes what it was making once this
 * client goes away, it is read again until it stays the same, a few seconds at most.
 */
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { BATCH_SETTLE_MS, BATCH_SETTLE_POLL_MS, BATCH_SETTLE_READS, type InterruptedBatch, interruptedBatchNow } from "../store/interrupted-batch.ts"

export const tellInterruptedBatch = Effect.fnUntraced(function*(batch: InterruptedBatch) {
  const read = Effect.sync(() => interruptedBatchNow(batch))
  let sentence = yield* read
  if (batch.supervised && batch.taken) {
    const until = (yield* Clock.currentTimeMillis) + BATCH_SETTLE_MS
    for (let same = 1; same < BATCH_SETTLE_READS && (yield* Clock.currentTimeMillis) < until;) {
      yield* Effect.sleep(Duration.millis(BATCH_SETTLE_POLL_MS))
      const again = yield* read
      same = again === sentence ? same + 1 : 1
      sentence = again
    }
  }
  yield* Console.error(`orch: ${sentence}`)
})
