/**
 * The queue's procedures: `orch queue add|ls|rm`, and admission (the supervisor's: start what the rule in
 * src/domain/admission.ts admits, until it admits nothing). An admitted entry is claimed with the session id its spawn
 * reserved before anything is made, and leaves the queue only once that session exists; a spawn that fails or is
 * cancelled puts it back where it was, unless the failure is the entry's own (failure-owner.ts). A failure of where
 * the session was to run holds that host back for the project (src/domain/holds.ts). Events: `queue.added`,
 * `queue.admitted`, `queue.dropped`, `queue.held`, `queue.resumed`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { admission, type Waiting } from "../domain/admission.ts"
import { type Hold, holdAfterFailure, holdSentence, liftHold, projectHold } from "../domain/holds.ts"
import { firstInvalidIssueId, ISSUE_ID_EXPECTED, normalIssueId } from "../domain/issue-id.ts"
import { entryLabel, type Positioned, type QueueEntry } from "../domain/queue.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { hostOf, isEnded, type SessionRecord, worksAnIssue } from "../domain/session.ts"
import { InvalidIssueId } from "../plugins/tracker/Tracker.ts"
import { waitingReason } from "../store/admission-file.ts"
import type { EventLogShape } from "../store/EventLog.ts"
import { changeHolds, readHolds } from "../store/holds-file.ts"
import { isOwnerAlive, thisProcess } from "../store/process-liveness.ts"
import type { QueueStoreShape } from "../store/QueueStore.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"
import { admissionFacts, type MachineReading, readMachine } from "./admission-facts.ts"
import { EmptyTask, IssueHasSession, NotQueued, QueueEntryStarting } from "./errors.ts"
import { failureOwner, type SpawnFailure } from "./failure-owner.ts"
import { readMeasured } from "./reservations.ts"
import type { SpawnTarget } from "./SessionOps.ts"
import type { SpawnOptions } from "./spawn-run.ts"

/** The entry was claimed, or removed, by someone else before this spawn could claim it. */
export class EntryTaken extends Schema.TaggedError<EntryTaken>()("EntryTaken", { entryId: Schema.String }) {
  override get message() {
    return `${this.entryId} was taken off the queue meanwhile`
  }
}

export interface QueueingDeps {
  readonly queue: QueueStoreShape
  readonly events: EventLogShape
  readonly store: SessionStoreShape
  readonly config: Effect.Effect<OrchestratorConfig>
  readonly findProject: (config: OrchestratorConfig, ref: string) => Effect.Effect<ProjectConfig, { readonly message: string }>
  readonly spawn: (
    projectId: string,
    target: SpawnTarget,
    options: Pick<SpawnOptions, "claim" | "refuseClosed">
  ) => Effect.Effect<{ readonly record: SessionRecord }, SpawnFailure>
  /**
   * The issue as the project's tracker has it (undefined for a tracker that keeps none): `queue add` refuses an issue
   * the tracker says does not exist, and keeps the title of one it knows.
   */
  readonly lookup: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    issueId: string
  ) => Effect.Effect<{ readonly title: string } | undefined, { readonly _tag: string; readonly message: string }>
  /** For each project named, why no host could take one of its sessions now (hosts configured, or this machine held). */
  readonly unplaceable: (
    config: OrchestratorConfig,
    records: ReadonlyArray<SessionRecord>,
    projectIds: ReadonlyArray<string>,
    holds: ReadonlyArray<Hold>
  ) => Effect.Effect<Readonly<Record<string, string | undefined>>, { readonly message: string }>
  /** This machine's memory and load now, read at each round: `readMachine` unless given (tests give their own). */
  readonly machine?: Effect.Effect<MachineReading>
  /** What this machine's reserved sessions already take (admission-facts.ts `Measured.used`); none read unless given. */
  readonly used?: (config: OrchestratorConfig, reserved: ReadonlyArray<SessionRecord>) => Effect.Effect<ReadonlyMap<string, number>>
}

export type Candidate = Positioned & { readonly agent: string }

/** A hold made or kept by a failed spawn; `fresh` when people have not been told of it yet. */
export interface HoldNews {
  readonly hold: Hold
  readonly fresh: boolean
}

/** Records a failure in `scope` (a hold made or put off), with `queue.held` when it is new. */
export const recordHold = Effect.fnUntraced(function*(
  root: string,
  events: EventLogShape,
  scope: { readonly project: string; readonly host?: string | undefined },
  reason: string
) {
  const news = yield* changeHolds(root, (holds, now) => {
    const next = holdAfterFailure(holds, scope, reason, now)
    return [next.holds, { hold: next.hold, fresh: next.fresh }] as const
  })
  if (news.fresh) {
    yield* events.append({
      type: "queue.held",
      projectId: scope.project,
      message: `${scope.host !== undefined ? `host ${scope.host} is left out for ${scope.project}` : `${scope.project} is held`}: ${reason}`,
      data: { ...(scope.host !== undefined ? { host: scope.host } : {}), reason, retryAt: news.hold.retryAt }
    })
  }
  return news satisfies HoldNews
})

/**
 * Ends holds of `project`, with `queue.resumed` each: those a spawn that succeeded on `host` disproves (that host's,
 * and the project's own), or, with no host, all of them (its config changed: what failed may be fixed).
 */
export const liftHolds = Effect.fnUntraced(function*(root: string, events: EventLogShape, project: string, host: string | undefined, why: string) {
  const lifted = yield* changeHolds(root, (holds) => {
    const gone = holds.filter((hold) => hold.project === project && (host === undefined || hold.host === undefined || hold.host === host))
    return [gone.length > 0 ? gone.reduce((left, hold) => liftHold(left, hold), holds) : undefined, gone] as const
  })
  for (const hold of lifted) {
    yield* events.append({
      type: "queue.resumed",
      projectId: project,
      message: `${hold.host !== undefined ? `host ${hold.host} takes ${project}'s sessions again` : `${project} starts sessions again`}: ${why}`,
      data: hold.host !== undefined ? { host: hold.host } : {}
    })
  }
  return lifted.length
})

export const makeQueueing = (deps: QueueingDeps) => {
  const { events, queue, store } = deps
  const root = store.paths.root

  /** Issues that could never start are refused when queued, not dropped later: not an issue id, one a live session works. */
  const queueAdd = Effect.fn("Queue.add")(function*(projectRef: string, issues: ReadonlyArray<string>, priority: number) {
    const config = yield* deps.config
    const project = yield* deps.findProject(config, projectRef)
    const invalid = firstInvalidIssueId(issues)
    if (invalid !== undefined) return yield* new InvalidIssueId({ issueId: invalid, expected: ISSUE_ID_EXPECTED })
    const ids = issues.map(normalIssueId)
    const { records } = yield* store.list
    for (const issueId of ids) {
      const live = records.find((r) => r.projectId === project.id && r.issueId === issueId && !isEnded(r.status) && worksAnIssue(r))
      if (live !== undefined) return yield* new IssueHasSession({ issueId, sessionId: live.sessionId })
    }
    // Asked all at once: an issue the tracker does not have is refused now, not dropped at admission; one it cannot
    // be asked about now (unavailable) is queued without its title.
    const titles = yield* Effect.forEach(ids, (issueId) =>
      deps.lookup(config, project, issueId).pipe(
        Effect.map((issue) => issue?.title),
        Effect.catch((error) => error._tag === "IssueNotFound" || error._tag === "InvalidIssueId" ? Effect.fail(error) : Effect.succeed(undefined))
      ), { concurrency: "unbounded" })
    return yield* queue.add(project.id, ids.map((issue, i) => ({ issue, ...(titles[i] !== undefined ? { title: titles[i] } : {}) })), priority)
  })

  /**
   * Queues a task in a person's words (`orch queue add --task`): kept whole in the entry, it is the agent's prompt
   * once admitted, as `orch spawn --task` makes it. No tracker is asked; the same task twice is two entries.
   */
  const queueTask = Effect.fn("Queue.task")(function*(projectRef: string, task: string, priority: number) {
    const config = yield* deps.config
    const project = yield* deps.findProject(config, projectRef)
    const text = task.trim()
    if (text === "") return yield* new EmptyTask({})
    return yield* queue.add(project.id, [{ task: text }], priority)
  })

  const queueRemove = Effect.fn("Queue.remove")(function*(ref: string) {
    const { removed, starting } = yield* queue.remove(ref, "removed (orch queue rm)")
    if (removed.length === 0 && starting.length > 0) {
      return yield* new QueueEntryStarting({ entryId: starting[0]!.id, sessionId: starting[0]!.admitting!.sessionId })
    }
    if (removed.length === 0) return yield* new NotQueued({ ref })
    return removed
  })

  /** The queue's waiting entries the config knows, as the rule's candidates (an entry of a removed project waits). */
  const candidates = (config: OrchestratorConfig, entries: ReadonlyArray<Positioned>): Array<Candidate> =>
    entries.flatMap((entry) => {
      const project = Object.values(config.projects).find((p) => p.id === entry.projectId)
      return project === undefined || entry.admitting !== undefined ? [] : [{ ...entry, agent: project.agent }]
    })

  /** Entries this process is starting now: recovery leaves them alone even though they name a live process. */
  const inFlight = new Set<string>()

  type Started =
    | { readonly _tag: "Admitted" }
    | { readonly _tag: "Dropped"; readonly reason: string }
    | { readonly _tag: "Taken" }
    | { readonly _tag: "Held"; readonly news: HoldNews }
    | { readonly _tag: "Wait"; readonly reason: string }

  /** Claims `entry` with the session its spawn reserves, starts it, and settles the entry by how that went. */
  const start = Effect.fnUntraced(function*(entry: Candidate) {
    let claimed: string | undefined
    // Claimed and remembered as one step: a cancel between the two would leave the mark with nobody to clear it.
    const claim = (sessionId: string) =>
      queue.claim(entry.id, sessionId).pipe(
        Effect.tap((ok) => Effect.sync(() => void (ok ? (claimed = sessionId) : undefined))),
        Effect.uninterruptible,
        Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail(new EntryTaken({ entryId: entry.id }))))
      )
    const target: SpawnTarget = entry.issue !== undefined ? { _tag: "Issue", issue: entry.issue } : { _tag: "Task", task: entry.task ?? "" }
    inFlight.add(entry.id)
    const spawned = yield* deps.spawn(entry.projectId, target, { claim, refuseClosed: true }).pipe(
      // Cancelled (the supervisor stops): the spawn undid what it made; the entry goes back where it was.
      Effect.onInterrupt(() => claimed === undefined ? Effect.void : settleLogged(entry, claimed, { _tag: "Returned" })),
      Effect.result,
      Effect.ensuring(Effect.sync(() => inFlight.delete(entry.id)))
    )
    const label = `${entry.id} (${entryLabel(entry)})`
    if (spawned._tag === "Success") {
      const { record } = spawned.success
      const now = yield* Clock.currentTimeMillis
      yield* queue.settle(entry.id, record.sessionId, {
        _tag: "Admitted",
        message: `${label} started as ${record.sessionId}`,
        data: { waitedMs: Math.max(0, now - Date.parse(entry.addedAt)) }
      })
      yield* liftHolds(root, events, entry.projectId, hostOf(record), "a spawn there succeeded")
      return { _tag: "Admitted" } satisfies Started
    }
    const error = spawned.failure
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

  /** Settles an entry where failing cannot be answered (a cancelled spawn): a failure is logged, recovery redoes it. */
  const settleLogged = (entry: QueueEntry, sessionId: string, how: { readonly _tag: "Returned" }) =>
    queue.settle(entry.id, sessionId, how).pipe(
      Effect.catch((error) =>
        Effect.logWarning(`${entry.id} stays marked as being started as ${sessionId} (${error.message}); the next start of orch puts it back`)
      )
    )

  /**
   * Starts what the rule admits, one at a time, until it admits nothing; answers what waits and why, the entries
   * that could never start and left the queue, and the holds failed spawns made (for people to hear of).
   */
  const admit = Effect.fn("Queue.admit")(function*() {
    const dropped: Array<{ readonly entry: QueueEntry; readonly reason: string }> = []
    const held: Array<HoldNews> = []
    const answer = (waiting: ReadonlyArray<Waiting<Candidate>>) => ({ waiting, dropped, held })
    for (;;) {
      const config = yield* deps.config
      const entries = yield* queue.list
      const waiting = candidates(config, entries)
      if (waiting.length === 0) return answer([])
      const { records } = yield* store.list
      const now = yield* Clock.currentTimeMillis
      const holds = yield* readHolds(root)
      const projectIds = [...new Set(waiting.map((entry) => entry.projectId))]
      const unplaceable = yield* deps.unplaceable(config, records, projectIds, holds)
      const heldProjects = Object.fromEntries(projectIds.map((id) => {
        const hold = projectHold(holds, id, now)
        return [id, hold === undefined ? undefined : holdSentence(hold, clockTime(now))]
      }))
      // Each round reads the records again: the session the last one started holds its reservation in them.
      const measured = yield* readMeasured(root, records)
      const used = deps.used === undefined ? undefined : yield* deps.used(config, measured.reserved)
      const facts = admissionFacts(config, records, yield* (deps.machine ?? readMachine), used === undefined ? measured : { ...measured, used }, {
        unplaceable,
        held: heldProjects
      })
      const verdict = admission(waiting, facts)
      const entry = verdict.admit
      if (entry === undefined) return answer(verdict.waiting)
      const started = yield* start(entry)
      if (started._tag === "Dropped") dropped.push({ entry, reason: started.reason })
      if (started._tag === "Held") held.push(started.news)
      if (started._tag === "Wait") return answer([...verdict.waiting, { entry, reason: started.reason }])
    }
  })

  /** Without a supervisor (the CLI's own procedures), nothing admits: every entry says so. */
  const queueList = () => Effect.map(queue.list, (entries) => entries.map((entry) => ({ ...entry, reason: waitingReason(undefined, undefined, entry) })))

  /** Whether an entry marked as being started was left so by a process that is gone (or by this one, not starting it now). */
  const orphaned = (entry: QueueEntry) => {
    const by = entry.admitting?.by
    return by !== undefined && (by === thisProcess() ? !inFlight.has(entry.id) : !isOwnerAlive(by))
  }
  return { queueAdd, queueTask, queueRemove, queueList, admit, orphaned }
}
