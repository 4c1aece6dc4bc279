/**
 * `orch batch-spawn`: many issues of one project at once. The whole batch is written to the queue first, in one step
 * (docs/queue.md, "Crashes and stops"): from then on a `kill -9` leaves each issue queued, being started (its entry
 * claimed, which recovery finishes or undoes) or started, never dropped. Then what the admission rule lets start now
 * is taken off the queue and started, as admission does (claimed-start.ts), placed in turn on one headroom reading per
 * host; the rest waits behind what was queued already; an issue a live session works is skipped. Each issue's outcome
 * is told as it is known.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { planBatch } from "../domain/admission.ts"
import { heldHosts } from "../domain/holds.ts"
import { firstInvalidIssueId, ISSUE_ID_EXPECTED, normalIssueId } from "../domain/issue-id.ts"
import type { Positioned } from "../domain/queue.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { isEnded, worksAnIssue } from "../domain/session.ts"
import { InvalidIssueId } from "../plugins/tracker/Tracker.ts"
import { EventLog } from "../store/EventLog.ts"
import { readHolds } from "../store/holds-file.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { admissionFacts, readMachine } from "./admission-facts.ts"
import { startClaimed } from "./claimed-start.ts"
import type { NoHostFits } from "./errors.ts"
import { failureOwner } from "./failure-owner.ts"
import { liftHolds, recordHold } from "./hold-changes.ts"
import { chooseHosts, type HostChoice } from "./host-choice.ts"
import { PlacementFacts } from "./PlacementFacts.ts"
import type { BatchSpawnError } from "./procedure-errors.ts"
import { findProject, projectsOf } from "./project-lookup.ts"
import { Reconciler } from "./Reconciler.ts"
import { readMeasured } from "./reservations.ts"
import type { BatchOutcome } from "./SessionOps.ts"
import { SessionPlugins } from "./SessionPlugins.ts"
import { SessionQueue } from "./SessionQueue.ts"
import { spawnSession } from "./spawn.ts"

export interface BatchSpawnerShape {
  /** Starts, queues or skips each of `issues` of the project `projectRef` names; `onOutcome` hears each outcome as it is known. */
  readonly batchSpawn: (
    projectRef: string,
    issues: ReadonlyArray<string>,
    onOutcome?: (outcome: BatchOutcome) => Effect.Effect<void>
  ) => Effect.Effect<ReadonlyArray<BatchOutcome>, BatchSpawnError>
}

/**
 * How many of a batch's sessions are started at once. Their git steps take turns at the repository anyway; what
 * runs side by side is the rest, mostly the look at each new agent (150 ms with no ready signal). At 4 those looks
 * came in waves of four, 3 waves for a batch of 10 (~0.84 s against ~0.70 s at 16, measured side by side).
 */
const BATCH_CONCURRENCY = 16

/** A batch's plan: the issues live sessions work (with theirs), the queue entries of those that wait, and where those that start go. */
interface BatchPlan {
  readonly unique: ReadonlyArray<string>
  readonly live: ReadonlyMap<string, string>
  readonly entries: ReadonlyMap<string | undefined, Positioned>
  readonly waits: ReadonlyMap<string, string>
  readonly hostOfIssue: ReadonlyMap<string, Effect.Effect<HostChoice, NoHostFits>>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const reconciler = yield* Reconciler
  const placement = yield* PlacementFacts
  const { queue, inFlight } = yield* SessionQueue
  const root = store.paths.root

  /** Which issues start now (and where), wait in the queue or have a session already; all but the last are queued now. */
  const plan = Effect.fnUntraced(function*(config: OrchestratorConfig, project: ProjectConfig, issues: ReadonlyArray<string>) {
    const { records } = yield* store.list
    // Tasks are not issues: a task whose slug reads like an issue id never makes that issue skipped.
    const live = new Map(records.filter((r) => r.projectId === project.id && !isEnded(r.status) && worksAnIssue(r)).map((r) => [r.issueId, r.sessionId]))
    const unique = [...new Set(issues.map(normalIssueId))]
    // What the admission rule does not let start now waits in the queue (behind what is queued already).
    const fresh = unique.filter((issueId) => !live.has(issueId)).map((issueId) => ({ id: issueId, projectId: project.id, agent: project.agent }))
    const queued = (yield* queue.list).flatMap((entry) => {
      const owner = projectsOf(config).find((p) => p.id === entry.projectId)
      return owner === undefined ? [] : [{ id: entry.id, projectId: entry.projectId, agent: owner.agent }]
    })
    const now = yield* Clock.currentTimeMillis
    const holds = yield* readHolds(root)
    const read = yield* readMeasured(root, records)
    const measured = { ...read, used: yield* placement.usedHere(config, read.reserved) }
    // A person's batch tries now: holds leave hosts out of its placement (below), they do not hold it back.
    const planned = planBatch(queued, fresh, admissionFacts(config, records, yield* readMachine, measured))
    const waits = new Map(planned.waiting.map((w) => [w.entry.id, w.reason]))
    const accepted = unique.filter((issueId) => !live.has(issueId))
    const startsNow = (issueId: string | undefined) => issueId !== undefined && !waits.has(issueId)
    // Where each one that starts now goes: placed in turn on one headroom reading per host.
    const starting = accepted.filter(startsNow)
    const held = heldHosts(holds, project.id, now, clockTime(now))
    const hosts = yield* chooseHosts(yield* plugins.connections(config), config, project, records, measured.reserved, starting.length, held)
    // Written down whole before anything starts: a kill from here on leaves every issue of the batch queued or started.
    const { added, already } = accepted.length === 0 ? { added: [], already: [] } : yield* queue.add(
      project.id,
      accepted.map((issue) => ({ issue })),
      0,
      (entry) =>
        startsNow(entry.issue)
          ? `queued ${entry.id} for orch batch-spawn, which starts it now`
          : `queued ${entry.id} at position ${entry.position}`
    )
    // A waiting entry's position as it is once the batch's own starts leave the queue.
    const leaving = [...added, ...already].filter((entry) => startsNow(entry.issue)).map((entry) => entry.position)
    const entries = new Map([...added, ...already].map((entry) => [
      entry.issue,
      startsNow(entry.issue) ? entry : { ...entry, position: entry.position - leaving.filter((p) => p < entry.position).length }
    ]))
    return { unique, live, entries, waits, hostOfIssue: new Map(starting.map((issueId, i) => [issueId, hosts[i]!])) } satisfies BatchPlan
  })

  const waiting = (issueId: string, entry: Positioned, reason: string): BatchOutcome => ({
    _tag: "Queued",
    issueId,
    entryId: entry.id,
    position: entry.position,
    reason
  })

  /**
   * Takes one issue's entry off the queue and starts it where the plan put it. No host can take it now: it waits in
   * the queue, as what the admission rule holds back does. Where it was to run could not take it (not the issue's
   * fault): with other hosts, that one is held back and the issue waits for another. Otherwise it failed, and the
   * person hears why now: the entry leaves the queue, saying so, so nothing starts it behind their back.
   */
  const start = (config: OrchestratorConfig, project: ProjectConfig, issueId: string, entry: Positioned, where: Effect.Effect<HostChoice, NoHostFits>) =>
    where.pipe(
      Effect.matchEffect({
        onFailure: (nowhere) => Effect.succeed(waiting(issueId, entry, `waiting for a host: ${nowhere.reason}`)),
        onSuccess: ({ host, dataDir, origin }) =>
          Effect.gen(function*() {
            const label = `${entry.id} (issue ${issueId})`
            const started = yield* startClaimed(
              queue,
              inFlight,
              entry,
              (claim) =>
                spawnSession(project, { _tag: "Issue", issue: issueId }, {
                  configPath: config.configPath,
                  host,
                  hostDataDir: dataDir,
                  hostOrigin: origin,
                  claim
                })
                  .pipe(plugins.provide(config, project, host)),
              (record) => Effect.succeed({ message: `${label} started as ${record.sessionId} by orch batch-spawn` })
            )
            if (started._tag === "Started") {
              yield* liftHolds(root, events, project.id, host, "a spawn there succeeded")
              return { _tag: "Created", issueId, ...started.spawned } satisfies BatchOutcome
            }
            const { error, claimed } = started
            if (error._tag === "EntryTaken") {
              return waiting(issueId, entry, `${error.message}: the supervisor's admission is starting it, or \`orch queue rm\` removed it`)
            }
            const owner = failureOwner(error)
            if (owner._tag === "Host" && Object.keys(config.hosts).length > 0) {
              if (claimed !== undefined) yield* queue.settle(entry.id, claimed, { _tag: "Returned" })
              yield* recordHold(root, events, { project: project.id, host: owner.host }, owner.reason)
              const there = owner.host === LOCAL ? "this machine" : `host ${owner.host}`
              return waiting(issueId, entry, `waiting for a host: ${there} could not start it: ${owner.reason}`)
            }
            const message = `${label} left the queue: orch batch-spawn could not start it: ${error.message}`
            if (claimed !== undefined) yield* queue.settle(entry.id, claimed, { _tag: "Dropped", message })
            else yield* queue.drop(entry.id, message)
            return { _tag: "Failed", issueId, reason: error.message } satisfies BatchOutcome
          })
      }),
      Effect.catch((error) => Effect.succeed<BatchOutcome>({ _tag: "Failed", issueId, reason: error.message }))
    )

  const batchSpawn = Effect.fn("Sessions.batchSpawn")(function*(
    projectRef: string,
    issues: ReadonlyArray<string>,
    onOutcome: (outcome: BatchOutcome) => Effect.Effect<void> = () => Effect.void
  ) {
    const config = yield* configs.current
    const project = yield* findProject(config, projectRef)
    // Refused before anything starts or is queued, as `queue add` refuses it.
    const invalid = firstInvalidIssueId(issues)
    if (invalid !== undefined) return yield* new InvalidIssueId({ issueId: invalid, expected: ISSUE_ID_EXPECTED })
    yield* reconciler.reconcile()
    const { unique, live, entries, waits, hostOfIssue } = yield* plan(config, project, issues)
    return yield* Effect.forEach(unique, (issueId) => {
      const existing = live.get(issueId)
      const entry = entries.get(issueId)
      const outcome: Effect.Effect<BatchOutcome> = existing !== undefined
        ? Effect.succeed({ _tag: "Skipped", issueId, sessionId: existing })
        : waits.has(issueId)
        ? Effect.succeed(waiting(issueId, entry!, waits.get(issueId)!))
        : start(config, project, issueId, entry!, hostOfIssue.get(issueId)!)
      return Effect.tap(outcome, onOutcome)
    }, { concurrency: BATCH_CONCURRENCY })
  })

  return BatchSpawner.of({ batchSpawn })
})

export class BatchSpawner extends Context.Service<BatchSpawner, BatchSpawnerShape>()("orch/sessions/BatchSpawner") {
  /** Needs the config in force, the store, the event log, SessionPlugins, SessionQueue, PlacementFacts and the Reconciler. */
  static readonly layer = Layer.effect(BatchSpawner, make)
}
