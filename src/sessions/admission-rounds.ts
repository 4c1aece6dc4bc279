/**
 * Admission (the supervisor's): start what the rule in src/domain/admission.ts admits, until it admits nothing. The
 * rule decides on one entry at a time, each decision counting the sessions already starting: the next is decided as
 * soon as the spawn before it has written its session's first record, so admitted entries start side by side (their
 * slow steps, a `postCreate` or an agent's start, overlap). An admitted entry is claimed with the session id its spawn
 * reserved before anything is made, and leaves the queue only once that session exists; a spawn that fails or is
 * cancelled puts it back where it was, unless the failure is the entry's own (failure-owner.ts). A failure of where
 * the session was to run holds that host back for the project (hold-changes.ts). Once every start has ended, the
 * rule looks again: a start that failed may have left room.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Queue from "effect/Queue"
import type { OrchestratorConfig } from "../config/schema.ts"
import { admission, type Waiting } from "../domain/admission.ts"
import { holdSentence, projectHold } from "../domain/holds.ts"
import { entryLabel, type Positioned, type QueueEntry } from "../domain/queue.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { hostOf } from "../domain/session.ts"
import { readHolds } from "../store/holds-file.ts"
import { admissionFacts, readMachine } from "./admission-facts.ts"
import { startClaimed } from "./claimed-start.ts"
import { failureOwner } from "./failure-owner.ts"
import { type HoldNews, liftHolds, recordHold } from "./hold-changes.ts"
import type { EntriesInFlight } from "./queue-in-flight.ts"
import type { QueueingDeps } from "./queueing-deps.ts"
import { readMeasured } from "./reservations.ts"
import type { SpawnTarget } from "./SessionOps.ts"

export type Candidate = Positioned & { readonly agent: string }

/** At most this many admitted entries start side by side (as many as a batch-spawn starts at once). */
export const ADMIT_CONCURRENCY = 16

/** The queue's waiting entries the config knows, as the rule's candidates (an entry of a removed project waits). */
const candidates = (config: OrchestratorConfig, entries: ReadonlyArray<Positioned>): Array<Candidate> =>
  entries.flatMap((entry) => {
    const project = Object.values(config.projects).find((p) => p.id === entry.projectId)
    return project === undefined || entry.admitting !== undefined ? [] : [{ ...entry, agent: project.agent }]
  })

type Started =
  | { readonly _tag: "Admitted" }
  | { readonly _tag: "Dropped"; readonly reason: string }
  | { readonly _tag: "Taken" }
  | { readonly _tag: "Held"; readonly news: HoldNews }
  | { readonly _tag: "Wait"; readonly reason: string }

export const makeAdmissionRounds = (deps: QueueingDeps, inFlight: EntriesInFlight) => {
  const { events, queue, store } = deps
  const root = store.paths.root

  /**
   * Claims `entry` with the session its spawn reserves, starts it, and settles the entry by how that went. `drafted`
   * runs once the session's first record is written.
   */
  const start = Effect.fnUntraced(function*(entry: Candidate, drafted: Effect.Effect<void>) {
    const target: SpawnTarget = entry.issue !== undefined ? { _tag: "Issue", issue: entry.issue } : { _tag: "Task", task: entry.task ?? "" }
    const label = `${entry.id} (${entryLabel(entry)})`
    const started = yield* startClaimed(
      queue,
      inFlight,
      entry,
      (claim) => deps.spawn(entry.projectId, target, { claim, drafted, refuseClosed: true, priority: entry.priority }),
      (record) =>
        Effect.map(Clock.currentTimeMillis, (now) => ({
          message: `${label} started as ${record.sessionId}`,
          data: { waitedMs: Math.max(0, now - Date.parse(entry.addedAt)) }
        }))
    )
    if (started._tag === "Started") {
      yield* liftHolds(root, events, entry.projectId, hostOf(started.spawned.record), "a spawn there succeeded")
      return { _tag: "Admitted" } satisfies Started
    }
    const { error, claimed } = started
    if (error._tag === "EntryTaken") return { _tag: "Taken" } satisfies Started
    const owner = failureOwner(error)
    if (owner._tag === "Entry") {
      const message = `${label} could not start: ${owner.reason}`
      if (claimed !== undefined) yield* queue.settle(entry.id, claimed, { _tag: "Dropped", message })
      else yield* queue.drop(entry.id, message)
      return { _tag: "Dropped", reason: owner.reason } satisfies Started
    }
    if (claimed !== undefined) yield* queue.settle(entry.id, claimed, { _tag: "Returned" })
    if (owner._tag === "Wait") return { _tag: "Wait", reason: owner.reason } satisfies Started
    const news = yield* recordHold(root, events, { project: entry.projectId, ...(owner._tag === "Host" ? { host: owner.host } : {}) }, owner.reason)
    return { _tag: "Held", news } satisfies Started
  })

  /** What the rule decides on at each round: read again each time (the session the last one started holds its reservation in them). */
  const roundFacts = Effect.fnUntraced(function*(config: OrchestratorConfig, waiting: ReadonlyArray<Candidate>) {
    const { records } = yield* store.list
    const now = yield* Clock.currentTimeMillis
    const holds = yield* readHolds(root)
    const projectIds = [...new Set(waiting.map((entry) => entry.projectId))]
    const unplaceable = yield* deps.unplaceable(config, records, projectIds, holds)
    const heldProjects = Object.fromEntries(projectIds.map((id) => {
      const hold = projectHold(holds, id, now)
      return [id, hold === undefined ? undefined : holdSentence(hold, clockTime(now))]
    }))
    const measured = yield* readMeasured(root, records)
    const used = deps.used === undefined ? undefined : yield* deps.used(config, measured.reserved)
    return admissionFacts(config, records, yield* (deps.machine ?? readMachine), used === undefined ? measured : { ...measured, used }, {
      unplaceable,
      held: heldProjects
    })
  })

  /**
   * Starts what the rule admits, until it admits nothing and every start has ended; answers what waits and why, how
   * many it started, the entries that could never start and left the queue, and the holds failed spawns made (for
   * people to hear of). A start that says to wait (the machine is busy) ends the round's starting: what runs ends, and
   * that entry waits with the others. Cancelled (the supervisor stops), every start under way is cancelled with it.
   */
  const admit = Effect.fn("Queue.admit")(function*() {
    const dropped: Array<{ readonly entry: QueueEntry; readonly reason: string }> = []
    const held: Array<HoldNews> = []
    const waits: Array<Waiting<Candidate>> = []
    let admitted = 0
    let lastWaiting: ReadonlyArray<Waiting<Candidate>> = []
    let running = 0
    type Ended = Exit.Exit<Started, Effect.Error<ReturnType<typeof start>>>
    const ended = yield* Queue.unbounded<{ readonly entry: Candidate; readonly exit: Ended }>()
    const tally = (entry: Candidate, exit: Ended) => {
      running--
      if (Exit.isFailure(exit)) return Effect.failCause(exit.cause)
      const started = exit.value
      if (started._tag === "Admitted") admitted++
      if (started._tag === "Dropped") dropped.push({ entry, reason: started.reason })
      if (started._tag === "Held") held.push(started.news)
      if (started._tag === "Wait") waits.push({ entry, reason: started.reason })
      return Effect.void
    }
    return yield* Effect.scoped(Effect.gen(function*() {
      // Cancelled, every start under way is cancelled at once (the set interrupts them all together): one after
      // another, those not yet told would go on, and a start that ended whole meanwhile is one `orch stop
      // --kill-sessions` then kills, its entry gone from the queue.
      const starts = yield* FiberSet.make<void>()
      for (;;) {
        // What ended since the last look first: a start that failed or said to wait changes what comes next.
        for (const { entry, exit } of yield* Queue.clear(ended)) yield* tally(entry, exit)
        if (waits.length === 0 && running < ADMIT_CONCURRENCY) {
          const config = yield* deps.config
          const waiting = candidates(config, yield* queue.list)
          const verdict = waiting.length === 0 ? undefined : admission(waiting, yield* roundFacts(config, waiting))
          lastWaiting = verdict?.waiting ?? []
          const entry = verdict?.admit
          if (entry !== undefined) {
            const counted = yield* Deferred.make<void>()
            running++
            yield* FiberSet.run(
              starts,
              start(entry, Deferred.succeed(counted, undefined)).pipe(
                Effect.exit,
                Effect.flatMap((exit) => Queue.offer(ended, { entry, exit })),
                Effect.asVoid,
                Effect.ensuring(Deferred.succeed(counted, undefined))
              )
            )
            // The next decision counts this session: from its first record on, it is among the records.
            yield* Deferred.await(counted)
            continue
          }
        }
        if (running === 0) return { waiting: [...lastWaiting, ...waits], admitted, dropped, held }
        // Nothing more to start now: once a start ends, its place may be free again, and the rule looks again.
        const { entry, exit } = yield* Queue.take(ended)
        yield* tally(entry, exit)
      }
    }))
  })

  return { admit }
}
