/**
 * One probe cycle, every PROBE_INTERVAL: the actors follow the records (a session that ended loses its actor, a
 * live one gets one), every runtime and host is probed once (liveness-probe.ts), each probed session's new signals,
 * its screen where it is read (screen-reader.ts), its probe and the passing of time go to its actor; the sessions
 * here are measured when due (session-sizes.ts). Spawns cut short are undone and sessions whose PR merged or closed
 * are cleaned up on the way; the `all-complete` reaction counts what is live.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { measurable } from "../src/domain/session-size.ts"
import { hostOf, type SessionRecord } from "../src/domain/session.ts"
import type { Liveness } from "../src/plugins/runtime/Runtime.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import { listQueue } from "../src/store/QueueStore.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { cutShort } from "../src/store/spawner.ts"
import { Admission } from "./admission.ts"
import { Adoption, type ProbedCounts } from "./adoption.ts"
import { AllCompleteNotice } from "./all-complete-notice.ts"
import { LivenessProbe, type Probed } from "./liveness-probe.ts"
import { PartsFailed } from "./loop-guard.ts"
import { readScreen } from "./screen-reader.ts"
import { SessionActors } from "./session-actors.ts"
import { SessionSizes } from "./session-sizes.ts"
import { SignalReader } from "./signal-reader.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"
import { WatchedProjects } from "./watched-projects.ts"

export const PROBE_INTERVAL = "5 seconds"
const AGAIN = "orch tries again at the next probe cycle"

export interface ProbeCycleShape {
  /** One probe cycle; fails (after doing the rest) with the parts that could not be probed. */
  readonly cycle: () => Effect.Effect<void, unknown>
  /** A probe cycle now (a procedure changed the records): a failure is reported as the loop's are. */
  readonly cycleNow: Effect.Effect<void>
}

const livenessOf = (liveness: Liveness | undefined) =>
  liveness === undefined ? "error" as const : liveness._tag === "Alive" ? "alive" as const : liveness._tag === "Exited" ? "exited" as const : "gone" as const

export class ProbeCycle extends Context.Service<ProbeCycle, ProbeCycleShape>()("orch/actors/ProbeCycle") {
  static readonly layer = Layer.effect(
    ProbeCycle,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const manager = yield* SessionManager
      const actors = yield* SessionActors
      const projects = yield* WatchedProjects
      const prober = yield* LivenessProbe
      const signals = yield* SignalReader
      const sizes = yield* SessionSizes
      const adoption = yield* Adoption
      const allComplete = yield* AllCompleteNotice
      const admission = yield* Admission
      const { loops } = yield* SupervisorLoops

      /** Undoes interrupted spawns (SessionManager's reconcile: `session.reconciled` each); what it frees, admission may fill. */
      const undoInterrupted = Effect.gen(function*() {
        const done = yield* manager.reconcile()
        for (const { line } of done) yield* Effect.logInfo(line)
        if (done.length > 0) yield* admission.soon
      })

      /** Actors follow the records: a session that ended frees its budgets (admission looks at the queue now). */
      const followRecords = Effect.fnUntraced(function*(records: ReadonlyArray<SessionRecord>) {
        // A spawn whose process died half-way (lists show it interrupted) is undone now, not at some later command.
        if (cutShort(records).some((r) => projects.get(r.projectId) !== undefined)) yield* loops.cleanup.attempt(undoInterrupted, AGAIN)
        // A merged or closed PR ends its session: terminal and worktree go (unsaved work is rescued first).
        if (records.some((r) => r.endedAt === undefined && (r.pr?.state === "merged" || r.pr?.state === "closed"))) {
          yield* loops.cleanup.attempt(manager.cleanup({ dryRun: false }), AGAIN)
        }
        const live = records.filter(projects.isLive)
        // Work still to do (a spawn under way, an entry queued) is not "all complete".
        const queued = (yield* listQueue(store.paths.root).pipe(Effect.orElseSucceed(() => []))).filter((entry) => projects.get(entry.projectId) !== undefined)
        const pending = records.filter((r) => r.role === undefined && r.status === "spawning").length + queued.length
        yield* allComplete.count(records, live.filter((r) => r.role === undefined).length + pending)
        const liveIds = new Set(live.map((r) => r.sessionId))
        const ended = actors.entries().map((entry) => entry.record.sessionId).filter((id) => !liveIds.has(id))
        for (const id of ended) yield* actors.stop(id)
        if (ended.length > 0) yield* admission.soon
        for (const record of live) yield* actors.start(record)
        return live
      })

      /** Each probed session's signals, screen, probe and a tick, to its actor; answers what the probe found. */
      const observeProbed = Effect.fnUntraced(function*(probed: Probed, now: number) {
        const counts: ProbedCounts = { alive: 0, exited: 0, gone: 0, unknown: 0 }
        for (const record of probed.records) {
          const owner = projects.get(record.projectId)
          const entry = actors.entry(record.sessionId)
          if (owner === undefined || entry === undefined) continue
          yield* signals.deliver(record.sessionId, now)
          const liveness = probed.liveness.get(record.sessionId)
          const seen = livenessOf(liveness)
          counts[seen === "error" ? "unknown" : seen]++
          const lastOutputAt = liveness?._tag === "Alive" ? liveness.lastOutputAt : undefined
          const screen = liveness?._tag === "Alive" ? yield* readScreen(record, entry.reading, owner, lastOutputAt, now) : {}
          yield* actors.observe(record.sessionId, { _tag: "Probe", liveness: seen, ...screen, ...(lastOutputAt !== undefined ? { lastOutputAt } : {}) })
          yield* actors.observe(record.sessionId, { _tag: "Tick" })
        }
        return counts
      })

      /** The sessions here measured (session-sizes.ts) from the pids the probe gave. */
      const measure = Effect.fnUntraced(function*(probed: Probed) {
        const measuredAt = yield* Clock.currentTimeMillis
        const running = probed.records.flatMap((record) => {
          const liveness = probed.liveness.get(record.sessionId)
          return liveness?._tag === "Alive" && liveness.pid !== undefined && measurable(record, measuredAt)
            ? [{ agent: record.agent.plugin, host: hostOf(record), pid: liveness.pid }]
            : []
        })
        yield* loops.sizes.attempt(sizes.sample(running, probed.ps), "orch measures the sessions again at the next minute")
      })

      const cycle = Effect.fn("ProbeCycle.cycle")(function*() {
        const { records } = yield* store.list
        const live = yield* followRecords(records)
        const now = yield* Clock.currentTimeMillis
        const probed = yield* prober.probe(live.filter((r) => r.runtime !== null))
        const counts = yield* observeProbed(probed, now)
        yield* measure(probed)
        yield* adoption.probed(counts)
        if (probed.failed.length > 0) return yield* new PartsFailed({ parts: probed.failed })
      })

      return ProbeCycle.of({ cycle, cycleNow: loops.probe.attempt(Effect.suspend(() => cycle()), AGAIN) })
    })
  )
}
