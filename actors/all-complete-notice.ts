/**
 * The `all-complete` reaction: when the last live worker ends, once each time that happens (rules/all-complete.ts
 * decides), a `reaction.triggered` event and, when the reaction says so, a notification with the sessions' summary.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { newNotification } from "../src/domain/notification.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { StoreError } from "../src/store/errors.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { allCompleteStep } from "./rules/all-complete.ts"

export interface AllCompleteNoticeShape {
  /** A worker's actor started: it counts as live even if it ends before the next count. */
  readonly workerStarted: () => void
  /** Each probe cycle: `liveCount` workers (and work still to start) are live now among `records`. */
  readonly count: (records: ReadonlyArray<SessionRecord>, liveCount: number) => Effect.Effect<void, StoreError>
}

export class AllCompleteNotice extends Context.Service<AllCompleteNotice, AllCompleteNoticeShape>()("orch/actors/AllCompleteNotice") {
  static readonly layer = Layer.effect(
    AllCompleteNotice,
    Effect.gen(function*() {
      const configs = yield* ConfigSource
      const events = yield* EventLog
      const router = yield* NotifierRouter
      /** Whether a worker was live since the last time none was. */
      let hadLiveWorkers = false

      const count = Effect.fn("AllCompleteNotice.count")(function*(records: ReadonlyArray<SessionRecord>, liveCount: number) {
        const step = allCompleteStep(hadLiveWorkers, liveCount)
        hadLiveWorkers = step.hadLiveWorkers
        const reaction = (yield* configs.current).reactions["all-complete"]
        if (!step.fire) return
        yield* events.append({ type: "reaction.triggered", reaction: "all-complete", action: reaction.action, data: { auto: reaction.auto } })
        if (!reaction.auto || reaction.action !== "notify") return
        const summary = records.filter((r) => r.role === undefined).map((r) =>
          `${r.sessionId}: ${r.status}${r.pr ? ` (PR #${r.pr.number} ${r.pr.state})` : ""}`
        )
        yield* router.notify(
          yield* newNotification({
            type: "reaction.all-complete",
            priority: reaction.priority ?? "info",
            title: "all sessions complete",
            message: [reaction.message ?? "Every session has finished.", ...(reaction.includeSummary ? summary : [])].join("\n")
          })
        )
      })

      return AllCompleteNotice.of({ workerStarted: () => void (hadLiveWorkers = true), count })
    })
  )
}
