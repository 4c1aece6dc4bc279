/**
 * The supervisor's loops, each under its own guard (loop-guard.ts): a failure is logged, recorded as
 * `supervisor.error` and backed off, never the end of the loop; one that keeps failing escalates. Each guard keeps
 * its loop's streak of failures for as long as the supervisor runs.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EventLog } from "../src/store/EventLog.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { type GuardedLoop, makeLoopGuard } from "./loop-guard.ts"
import { NotifierRouter } from "./notifier-router.ts"
import type { LoopPolicy } from "./rules/loop-health.ts"

/** The supervisor's own loops, by the name their failures are told under. */
const LOOP_NAMES = {
  probe: "probe cycle",
  pullRequests: "PR poll",
  issues: "issue poll",
  signals: "signal reader",
  cleanup: "session cleanup",
  looks: "PR look",
  adoption: "adoption",
  admission: "admission",
  hosts: "host watch",
  sizes: "session sizes",
  intake: "intake",
  train: "merge train",
  conflicts: "conflict prediction"
} as const

export type SupervisorLoop = keyof typeof LOOP_NAMES

export interface SupervisorLoopsShape {
  /** The guard of each of the supervisor's own loops. */
  readonly loops: Readonly<Record<SupervisorLoop, GuardedLoop>>
  /** A guard for another loop the supervisor runs (tracker updates, the config file's watch and reloads, the dashboard's). */
  readonly guard: (loop: string, policy?: LoopPolicy) => GuardedLoop
}

export class SupervisorLoops extends Context.Service<SupervisorLoops, SupervisorLoopsShape>()("orch/actors/SupervisorLoops") {
  static readonly layer = Layer.effect(
    SupervisorLoops,
    Effect.gen(function*() {
      const events = yield* EventLog
      const router = yield* NotifierRouter
      const store = yield* SessionStore
      const guard = makeLoopGuard({ events, notify: router.notify, logPath: store.paths.supervisorLog })
      const loops = Object.fromEntries(Object.entries(LOOP_NAMES).map(([key, name]) => [key, guard(name)])) as Record<SupervisorLoop, GuardedLoop>
      return SupervisorLoops.of({ loops, guard })
    })
  )
}
