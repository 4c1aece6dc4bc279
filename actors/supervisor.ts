/**
 * The supervisor (`orch start`): small services, each with one purpose, composed here and their loops started.
 *
 * - SessionActors (session-actors.ts): one actor per live session, a fiber with a bounded mailbox taking
 *   observations and commands (actor-mailbox.ts) one at a time; restarts (actor-restarts.ts) and escalation
 *   (actor-escalations.ts, remembered across restarts).
 * - The probe cycle (probe-cycle.ts), every PROBE_INTERVAL: LivenessProbe (one runtime call per project, one round
 *   trip per host), SignalReader (agents' signals, also pushed by file watchers), screen-reader.ts, SessionSizes,
 *   HostWatch, Adoption (at start) and AllCompleteNotice.
 * - The PR and issue watch: PullRequestWatch (the poll and its budgets), WebhookLooks, PullRequestMerge, IssueWatch.
 * - Admission and Intake: the queue's rounds, and the tracker's labelled issues into it.
 * - ConflictWatch: the live branches' predicted conflicts (conflict-watch.ts), at the probe interval.
 * - MergeTrain (merge-train.ts): each project's merge train, a round every poll interval.
 * - ProjectReload: a config reload's swap of projects (config-reload.ts follows the file).
 * - SessionCommands: the procedures it serves (spawn, send, kill, …), with the actors kept in step.
 *
 * The pure rules they follow are in rules/. Every loop runs under its guard (SupervisorLoops, loop-guard.ts): a
 * failure is logged, recorded as `supervisor.error` and backed off, never the end of the loop.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import type { ProjectConfig } from "../src/config/schema.ts"
import type { RuntimeShape } from "../src/plugins/runtime/Runtime.ts"
import type { MergeRefused } from "../src/sessions/errors.ts"
import type { SessionOps } from "../src/sessions/SessionOps.ts"
import type { SessionNotFound, StoreError } from "../src/store/errors.ts"
import { ActorEscalations } from "./actor-escalations.ts"
import { Admission } from "./admission.ts"
import { Adoption } from "./adoption.ts"
import { AllCompleteNotice } from "./all-complete-notice.ts"
import { CONFLICT_INTERVAL, ConflictWatch } from "./conflict-watch.ts"
import { HOST_READ_INTERVAL, HostWatch } from "./host-watch.ts"
import { Intake } from "./intake.ts"
import { ISSUE_POLL_INTERVAL, IssueWatch } from "./issue-watch.ts"
import { LivenessProbe } from "./liveness-probe.ts"
import type { GuardedLoop } from "./loop-guard.ts"
import { MergeTrain } from "./merge-train.ts"
import { PROBE_INTERVAL, ProbeCycle } from "./probe-cycle.ts"
import { ProjectReload } from "./project-reload.ts"
import { PullRequestMerge } from "./pull-request-merge.ts"
import { PullRequestWatch } from "./pull-request-watch.ts"
import type { LoopPolicy } from "./rules/loop-health.ts"
import { nextPollDelay } from "./rules/poll-pace.ts"
import { SessionActors } from "./session-actors.ts"
import { SessionCommands } from "./session-commands.ts"
import { SessionSizes } from "./session-sizes.ts"
import { SignalReader } from "./signal-reader.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"
import { trackerUpdatesLayer } from "./tracker-updates.ts"
import { WatchedProjects } from "./watched-projects.ts"
import { WebhookLooks } from "./webhook-looks.ts"

/** What the rest of orch asks of the running supervisor: its IPC handlers, the dashboard, `orch start`. */
export interface SupervisorShape {
  /** The session procedures it serves (SessionCommands). */
  readonly ops: SessionOps
  /** A person asked to merge a session's PR (the dashboard): merged only as auto-merge would, or joined to the project's merge train. */
  readonly merge: (
    sessionId: string
  ) => Effect.Effect<{ readonly prNumber: number; readonly train?: { readonly position: number } }, MergeRefused | SessionNotFound | StoreError>
  /** A webhook said `branch` of `repo` changed: its sessions' PRs are looked at now. */
  readonly branchChanged: (repo: string, branch: string) => Effect.Effect<void>
  /** A probe cycle now (a procedure changed the records). */
  readonly cycleNow: Effect.Effect<void>
  /** Stops admitting for good (`orch stop`, before anything is killed); answers once a round under way has ended. */
  readonly haltAdmission: Effect.Effect<void>
  /** What recovery did at this supervisor's start, a line each. */
  readonly recovered: Effect.Effect<ReadonlyArray<string>>
  /** How many session actors run. */
  readonly actorCount: Effect.Effect<number>
  /** The projects watched now. */
  readonly projects: Effect.Effect<ReadonlyArray<ProjectConfig>>
  /** The hosts of the config in force, local first. */
  readonly hosts: Effect.Effect<ReadonlyArray<string>>
  /** The runtime of a project watched now (a reload may make it again). */
  readonly runtimeOf: (projectId: string) => RuntimeShape | undefined
  /** A guard for another loop the supervisor runs (the config file's watch and reloads, the dashboard's). */
  readonly guard: (loop: string, policy?: LoopPolicy) => GuardedLoop
}

/** The supervisor's services, built in the order they need each other; no loop of the probe cycle, polls or admission runs yet. */
const services = PullRequestMerge.layer.pipe(
  Layer.provideMerge(MergeTrain.layer),
  Layer.provideMerge(SessionCommands.layer),
  Layer.provideMerge(ProbeCycle.layer),
  Layer.provideMerge(Layer.mergeAll(Adoption.layer, Intake.layer)),
  Layer.provideMerge(
    Layer.mergeAll(
      SignalReader.layer,
      Admission.layer,
      WebhookLooks.layer,
      LivenessProbe.layer,
      PullRequestWatch.layer,
      IssueWatch.layer,
      ProjectReload.layer,
      ConflictWatch.layer,
      trackerUpdatesLayer
    )
  ),
  Layer.provideMerge(SessionActors.layer),
  Layer.provideMerge(Layer.mergeAll(ActorEscalations.layer, AllCompleteNotice.layer, HostWatch.layer, SessionSizes.layer)),
  Layer.provideMerge(Layer.mergeAll(SupervisorLoops.layer, WatchedProjects.layer))
)

const make = Effect.gen(function*() {
  const actors = yield* SessionActors
  const projects = yield* WatchedProjects
  const configs = yield* ConfigSource
  return Supervisor.of({
    ops: yield* SessionCommands,
    merge: (yield* PullRequestMerge).merge,
    branchChanged: (yield* WebhookLooks).branchChanged,
    cycleNow: (yield* ProbeCycle).cycleNow,
    haltAdmission: (yield* Admission).halt,
    recovered: (yield* Adoption).recovered,
    actorCount: actors.count,
    projects: Effect.sync(() => projects.all().map((p) => p.project)),
    hosts: Effect.map(configs.current, (config) => ["local", ...Object.keys(config.hosts)]),
    runtimeOf: (projectId) => projects.get(projectId)?.runtime,
    guard: (yield* SupervisorLoops).guard
  })
})

const every = (interval: Duration.Input) => Effect.succeed(Duration.toMillis(interval))

/** Adopts what runs, then runs every loop for as long as the layer lives. */
const run = Effect.gen(function*() {
  const { loops } = yield* SupervisorLoops
  const configs = yield* ConfigSource
  const probe = yield* ProbeCycle
  const pullRequests = yield* PullRequestWatch
  const issues = yield* IssueWatch
  const admission = yield* Admission
  const hostWatch = yield* HostWatch
  const intake = yield* Intake
  const conflicts = yield* ConflictWatch
  yield* (yield* Adoption).adopt()
  yield* loops.probe.forever(Effect.suspend(() => probe.cycle()), every(PROBE_INTERVAL)).pipe(Effect.forkScoped)
  yield* loops.issues.forever(Effect.suspend(() => issues.poll()), every(ISSUE_POLL_INTERVAL)).pipe(Effect.forkScoped)
  // The PR poll paces itself by the rate-limit budget (rules/poll-pace.ts).
  const pace = Effect.gen(function*() {
    const { pollIntervalMs } = yield* configs.current
    return nextPollDelay(pollIntervalMs, pullRequests.budgets(), yield* Clock.currentTimeMillis)
  })
  yield* loops.pullRequests.forever(Effect.suspend(() => pullRequests.poll()), pace).pipe(Effect.forkScoped)
  yield* loops.admission.forever(Effect.andThen(admission.due, admission.round), Effect.succeed(0)).pipe(Effect.forkScoped)
  yield* loops.hosts.forever(Effect.suspend(() => hostWatch.round()), every(HOST_READ_INTERVAL)).pipe(Effect.forkScoped)
  yield* loops.intake.forever(Effect.suspend(() => intake.round()), intake.untilDue).pipe(Effect.forkScoped)
  yield* loops.conflicts.forever(Effect.suspend(() => conflicts.round()), every(CONFLICT_INTERVAL)).pipe(Effect.forkScoped)
  // The merge train's rounds; its first, at start, is its recovery: each head car's step is finished or undone by a look.
  const train = yield* MergeTrain
  yield* loops.train.forever(train.round.pipe(Effect.andThen(train.due)), Effect.succeed(0)).pipe(Effect.forkScoped)
})

export class Supervisor extends Context.Service<Supervisor, SupervisorShape>()("orch/actors/Supervisor") {
  /** The supervisor with its services, adopting what runs and running its loops for as long as the layer lives. */
  static readonly layer = Layer.effect(Supervisor, Effect.tap(make, () => run)).pipe(Layer.provideMerge(services))
  /**
   * The same services with none of the probe cycle's, polls', admission's or intake's loops running and nothing
   * adopted: a test drives each step itself (ProbeCycle.cycle, Adoption.adopt, PullRequestWatch.poll, …), under
   * TestClock. The actors, the signal reader and tracker updates run as in `layer`.
   */
  static readonly layerTest = Layer.effect(Supervisor, make).pipe(Layer.provideMerge(services))
}
