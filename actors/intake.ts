/**
 * The intake loop: for each project with `intake`, every `pollIntervalMs`, one request to its tracker for the open
 * issues with its labels; rules/intake.ts decides what to queue and what to drop, this carries it out
 * (`queue.added` / `queue.dropped` with `data.by: "intake"`) and wakes admission. A project whose tracker cannot
 * be asked is reported (the loop guard records it) and asked again at its next poll; the others go on.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ProjectConfig } from "../src/config/schema.ts"
import { isIssueId, ISSUE_ID_EXPECTED } from "../src/domain/issue-id.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { TrackerShape } from "../src/plugins/tracker/Tracker.ts"
import { EventLog, type EventLogShape } from "../src/store/EventLog.ts"
import { readIntakeSeen, writeIntakeSeen } from "../src/store/intake-file.ts"
import { QueueStore, type QueueStoreShape } from "../src/store/QueueStore.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { Admission } from "./admission.ts"
import { PartsFailed } from "./loop-guard.ts"
import { intakeStep } from "./rules/intake.ts"
import { WatchedProjects } from "./watched-projects.ts"

/** How often the loop looks again when no project has intake (a config reload may add one). */
export const INTAKE_IDLE_MS = 5_000

export interface IntakeDeps {
  readonly root: string
  readonly events: EventLogShape
  readonly queue: QueueStoreShape
  readonly records: Effect.Effect<ReadonlyArray<SessionRecord>, { readonly message: string }>
  /** The projects in force, each with its tracker. */
  readonly projects: Effect.Effect<ReadonlyArray<{ readonly project: ProjectConfig; readonly tracker: TrackerShape }>>
  /** Tells the admission loop to run a round now. */
  readonly admitSoon: Effect.Effect<void>
}

export const makeIntake = (deps: IntakeDeps) => {
  const lastPoll = new Map<string, number>()

  const poll = Effect.fnUntraced(function*(project: ProjectConfig, tracker: TrackerShape) {
    const intake = project.intake!
    if (tracker.openIssues === undefined) return yield* Effect.fail(`its tracker (${tracker.name}) cannot list issues by label`)
    const listed = yield* Effect.mapError(tracker.openIssues(intake.labels), (error) => error.message)
    // The same id rule as `orch queue add`: an id it refuses is never queued (and said once per poll).
    const open = listed.filter((issue) => isIssueId(issue.id))
    const refused = listed.filter((issue) => !isIssueId(issue.id)).map((issue) => JSON.stringify(issue.id))
    if (refused.length > 0) yield* Effect.logWarning(`intake of ${project.id}: ${refused.join(", ")} cannot be queued: an issue id is ${ISSUE_ID_EXPECTED}`)
    const records = yield* Effect.mapError(deps.records, (error) => error.message)
    const queued = (yield* Effect.mapError(deps.queue.list, (error) => error.message)).filter((entry) => entry.projectId === project.id)
    const seenFile = yield* Effect.mapError(readIntakeSeen(deps.root), (error) => error.message)
    const step = intakeStep({
      open,
      queued,
      worked: new Set(records.filter((record) => record.projectId === project.id && record.task === undefined).map((record) => record.issueId)),
      seen: new Set(seenFile.projects[project.id] ?? []),
      priorities: intake.priorities
    })
    for (const priority of [...new Set(step.add.map((item) => item.priority))]) {
      const issues = step.add.filter((item) => item.priority === priority).map((item) => ({
        issue: item.issue,
        by: "intake" as const,
        ...(item.title !== undefined ? { title: item.title } : {})
      }))
      yield* Effect.mapError(
        deps.queue.add(
          project.id,
          issues,
          priority,
          (entry) => `intake queued ${entry.id} (issue ${entry.issue}, labelled ${intake.labels.join(", ")}) at position ${entry.position}`
        ),
        (error) => error.message
      )
    }
    for (const entry of step.drop) {
      yield* Effect.mapError(
        deps.queue.drop(entry.id, `intake dropped ${entry.id}: issue ${entry.issue} is no longer open with the labels ${intake.labels.join(", ")}`),
        (error) => error.message
      )
    }
    yield* Effect.mapError(writeIntakeSeen(deps.root, { projects: { ...seenFile.projects, [project.id]: step.seen } }), (error) => error.message)
    if (step.add.length > 0) yield* deps.admitSoon
  })

  /** Polls every project whose intake is due; a failure of one is told after the others ran. */
  const round = Effect.fn("Intake.round")(function*() {
    const now = yield* Clock.currentTimeMillis
    const failed: Array<{ readonly name: string; readonly reason: string }> = []
    for (const { project, tracker } of yield* deps.projects) {
      if (project.intake === undefined) continue
      const last = lastPoll.get(project.id)
      if (last !== undefined && now - last < project.intake.pollIntervalMs) continue
      lastPoll.set(project.id, now)
      const polled = yield* Effect.result(poll(project, tracker))
      if (polled._tag === "Failure") {
        failed.push({ name: `${project.id}'s intake`, reason: polled.failure })
      }
    }
    if (failed.length > 0) return yield* new PartsFailed({ parts: failed })
  })

  /** How long until the next project's poll is due: the loop sleeps that long, so each round polls something. */
  const untilDue = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const waits = (yield* deps.projects).flatMap(({ project }) => {
      if (project.intake === undefined) return []
      const last = lastPoll.get(project.id)
      return [last === undefined ? 0 : Math.max(0, last + project.intake.pollIntervalMs - now)]
    })
    return waits.length === 0 ? INTAKE_IDLE_MS : Math.min(...waits)
  })

  return { round, untilDue }
}

export interface IntakeShape {
  /** Polls every project whose intake is due; fails, after the others ran, with those whose tracker failed. */
  readonly round: () => Effect.Effect<void, PartsFailed>
  /** How long (ms) until the next project's poll is due: the loop sleeps that long, so each round polls something. */
  readonly untilDue: Effect.Effect<number>
}

export class Intake extends Context.Service<Intake, IntakeShape>()("orch/actors/Intake") {
  /** The intake of the watched projects, into the queue in the data directory; admission is woken by what it queues. */
  static readonly layer = Layer.effect(
    Intake,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const events = yield* EventLog
      const projects = yield* WatchedProjects
      const admission = yield* Admission
      return Intake.of(makeIntake({
        root: store.paths.root,
        events,
        queue: QueueStore.make(store.paths.root, events),
        records: Effect.map(store.list, ({ records }) => records),
        projects: Effect.sync(() => projects.all()),
        admitSoon: admission.soon
      }))
    })
  )
}
