/**
 * The queue's procedures: `orch queue add|ls|rm`, and admission (the supervisor's: start what the rule in
 * src/domain/admission.ts admits, until it admits nothing). Events: `queue.added`, `queue.admitted`, `queue.dropped`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { admission, type Waiting } from "../domain/admission.ts"
import { entryLabel, type Positioned, type QueueEntry } from "../domain/queue.ts"
import { isEnded, type SessionRecord, worksAnIssue } from "../domain/session.ts"
import { InvalidIssueId } from "../plugins/tracker/Tracker.ts"
import { NO_SUPERVISOR_REASON } from "../store/admission-file.ts"
import type { EventLogShape } from "../store/EventLog.ts"
import type { QueueStoreShape } from "../store/QueueStore.ts"
import type { SessionStoreShape } from "../store/SessionStore.ts"
import { admissionFacts, type MachineReading, readMachine } from "./admission-facts.ts"
import { IssueHasSession, NotQueued } from "./errors.ts"
import { readMeasured } from "./reservations.ts"
import type { SpawnTarget } from "./SessionOps.ts"

export interface QueueingDeps {
  readonly queue: QueueStoreShape
  readonly events: EventLogShape
  readonly store: SessionStoreShape
  readonly config: Effect.Effect<OrchestratorConfig>
  readonly findProject: (config: OrchestratorConfig, ref: string) => Effect.Effect<ProjectConfig, { readonly message: string }>
  readonly spawn: (
    projectId: string,
    target: SpawnTarget
  ) => Effect.Effect<{ readonly record: SessionRecord }, { readonly _tag: string; readonly message: string }>
  /**
   * The issue as the project's tracker has it (undefined for a tracker that keeps none): `queue add` refuses an issue
   * the tracker says does not exist, and keeps the title of one it knows.
   */
  readonly lookup: (
    config: OrchestratorConfig,
    project: ProjectConfig,
    issueId: string
  ) => Effect.Effect<{ readonly title: string } | undefined, { readonly _tag: string; readonly message: string }>
  /** For each project named, why no host could take one of its sessions now (hosts configured), else nothing. */
  readonly unplaceable: (
    config: OrchestratorConfig,
    records: ReadonlyArray<SessionRecord>,
    projectIds: ReadonlyArray<string>
  ) => Effect.Effect<Readonly<Record<string, string | undefined>>, { readonly message: string }>
  /** This machine's memory and load now, read at each round: `readMachine` unless given (tests give their own). */
  readonly machine?: Effect.Effect<MachineReading>
}

export type Candidate = Positioned & { readonly agent: string }

const eventOf = (entry: QueueEntry) => ({ projectId: entry.projectId, ...(entry.issue !== undefined ? { issueId: entry.issue } : {}) })

export const makeQueueing = (deps: QueueingDeps) => {
  const { events, queue, store } = deps
  const added = (entries: ReadonlyArray<Positioned>) =>
    Effect.forEach(
      entries,
      (entry) =>
        events.append({
          type: "queue.added",
          ...eventOf(entry),
          message: `queued ${entry.id} at position ${entry.position}`,
          data: { entryId: entry.id, priority: entry.priority }
        }),
      { discard: true }
    )

  /** Issues that could never start are refused when queued, not dropped later: an empty id, one a live session works. */
  const queueAdd = Effect.fn("Queue.add")(function*(projectRef: string, issues: ReadonlyArray<string>, priority: number) {
    const config = yield* deps.config
    const project = yield* deps.findProject(config, projectRef)
    const ids = issues.map((issue) => issue.trim().replace(/^#/, ""))
    const empty = ids.findIndex((id) => id === "")
    if (empty !== -1) return yield* new InvalidIssueId({ issueId: issues[empty]!, expected: "an issue id, like 42" })
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
    const result = yield* queue.add(project.id, ids.map((issue, i) => ({ issue, ...(titles[i] !== undefined ? { title: titles[i] } : {}) })), priority)
    yield* added(result.added)
    return result
  })

  const queueRemove = Effect.fn("Queue.remove")(function*(ref: string) {
    const gone = yield* queue.remove(ref)
    if (gone.length === 0) return yield* new NotQueued({ ref })
    yield* Effect.forEach(
      gone,
      (entry) => events.append({ type: "queue.dropped", ...eventOf(entry), message: `${entry.id} removed (orch queue rm)`, data: { entryId: entry.id } }),
      { discard: true }
    )
    return gone
  })

  /** The queue's entries the config knows, as the rule's candidates (an entry of a removed project waits). */
  const candidates = (config: OrchestratorConfig, entries: ReadonlyArray<Positioned>): Array<Candidate> =>
    entries.flatMap((entry) => {
      const project = Object.values(config.projects).find((p) => p.id === entry.projectId)
      return project === undefined ? [] : [{ ...entry, agent: project.agent }]
    })

  /**
   * Starts what the rule admits, one at a time, until it admits nothing; answers what waits and why, and the
   * entries that could not start and left the queue (their spawn failed), for people to hear of.
   */
  const admit = Effect.fn("Queue.admit")(function*() {
    const dropped: Array<{ readonly entry: QueueEntry; readonly reason: string }> = []
    const answer = (waiting: ReadonlyArray<Waiting<Candidate>>) => ({ waiting, dropped })
    for (;;) {
      const config = yield* deps.config
      const entries = yield* queue.list
      if (entries.length === 0) return answer([])
      const { records } = yield* store.list
      const waiting = candidates(config, entries)
      const unplaceable = yield* deps.unplaceable(config, records, waiting.map((entry) => entry.projectId))
      // Each round reads the records again: the session the last one started holds its reservation in them.
      const facts = admissionFacts(config, records, yield* (deps.machine ?? readMachine), yield* readMeasured(store.paths.root, records), unplaceable)
      const verdict = admission(waiting, facts)
      const entry = verdict.admit
      if (entry === undefined) return answer(verdict.waiting)
      // Taken from the queue first: an entry is never started twice, even by two supervisors' rounds.
      if (!(yield* queue.take(entry.id))) continue
      const addedAt = Date.parse(entry.addedAt)
      const now = yield* Clock.currentTimeMillis
      const target: SpawnTarget = entry.issue !== undefined ? { _tag: "Issue", issue: entry.issue } : { _tag: "Task", task: entry.task ?? "" }
      const spawned = yield* Effect.result(deps.spawn(entry.projectId, target))
      if (spawned._tag === "Success") {
        yield* events.append({
          type: "queue.admitted",
          sessionId: spawned.success.record.sessionId,
          ...eventOf(entry),
          message: `${entry.id} (${entryLabel(entry)}) started as ${spawned.success.record.sessionId}`,
          data: { entryId: entry.id, waitedMs: Math.max(0, now - addedAt) }
        })
      } else if (spawned.failure._tag === "NoHostFits") {
        // The host watch's figures let it in, the spawn's fresh reading did not: it waits again (this round ends, or
        // the same figures would let it in again), nothing lost.
        const again = yield* queue.add(entry.projectId, [entry.issue !== undefined ? { issue: entry.issue } : { task: entry.task ?? "" }], entry.priority)
        yield* added(again.added)
        const requeued = [...again.added, ...again.already].map((queued) => ({ entry: { ...queued, agent: entry.agent }, reason: spawned.failure.message }))
        return answer([...verdict.waiting, ...requeued])
      } else {
        yield* events.append({
          type: "queue.dropped",
          ...eventOf(entry),
          message: `${entry.id} (${entryLabel(entry)}) could not start: ${spawned.failure.message}`,
          data: { entryId: entry.id }
        })
        dropped.push({ entry, reason: spawned.failure.message })
      }
    }
  })

  /** Without a supervisor (the CLI's own procedures), nothing admits: every entry says so. */
  const queueList = () => Effect.map(queue.list, (entries) => entries.map((entry) => ({ ...entry, reason: NO_SUPERVISOR_REASON })))
  return { queueAdd, queueRemove, queueList, admit, queued: added }
}
