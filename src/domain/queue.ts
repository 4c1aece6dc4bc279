/** The work queue's entries (src/store/QueueStore.ts keeps them): what waits in front of spawn, and its order. */
import * as Schema from "effect/Schema"
import { Outbox } from "./outbox.ts"
import { taskTitle } from "./task.ts"

/**
 * An entry being started: the session id its spawn reserved and the process doing it (`<pid> <start time>`). The
 * entry stays in the queue until its session record is whole; recovery (src/sessions/queue-recovery.ts) finishes or
 * undoes an admission whose process died.
 */
export const Admitting = Schema.Struct({
  sessionId: Schema.String,
  by: Schema.String,
  at: Schema.String
})
export type Admitting = typeof Admitting.Type

export const QueueEntry = Schema.Struct({
  /** `q-<n>`, never reused. */
  id: Schema.String,
  projectId: Schema.String,
  /** The issue to work; absent for a task. */
  issue: Schema.optionalKey(Schema.String),
  /** A task in a person's words (`orch queue add --task`), the whole text: the agent's prompt once admitted. */
  task: Schema.optionalKey(Schema.String),
  /** Higher first; 0 unless given. */
  priority: Schema.Int,
  addedAt: Schema.String,
  /** Arrival order among entries of the same priority. */
  seq: Schema.Int,
  /** `intake`: queued by the supervisor's intake (docs/queue.md), which drops it when its issue closes. */
  by: Schema.optionalKey(Schema.Literal("intake")),
  /** The issue's title, when it was known as it was queued (intake knows it). */
  title: Schema.optionalKey(Schema.String),
  admitting: Schema.optionalKey(Admitting)
})
export type QueueEntry = typeof QueueEntry.Type

export const QueueFile = Schema.Struct({
  next: Schema.Int,
  entries: Schema.Array(QueueEntry),
  /** The events of the last change, until they are in the event log (outbox.ts). */
  outbox: Schema.optionalKey(Outbox)
})
export type QueueFile = typeof QueueFile.Type

/** An entry with its place in the queue (1 is next). */
export type Positioned = QueueEntry & { readonly position: number }

/** Priority first (higher first), then arrival. */
export const queueOrder = (entries: ReadonlyArray<QueueEntry>): Array<Positioned> =>
  [...entries].sort((a, b) => b.priority - a.priority || a.seq - b.seq).map((entry, i) => ({ ...entry, position: i + 1 }))

const quoted = (title: string) => JSON.stringify(title.length > 60 ? `${title.slice(0, 59)}…` : title)

/** What an entry is for, for people: `42`, `42 "Fix the login"` when its title is known, or `task "Fix the login"` (its first line). */
export const entryLabel = (entry: Pick<QueueEntry, "issue" | "task" | "title">): string =>
  entry.issue !== undefined
    ? `${entry.issue}${entry.title !== undefined ? ` ${quoted(entry.title)}` : ""}`
    : `task ${quoted(taskTitle(entry.task ?? ""))}`

/** One entry as `orch queue ls` and `orch status` list it: "1. q-3 app 42 "Fix the login" (priority 2): waiting for …". */
export const entryLine = (entry: Positioned, reason: string): string =>
  `${entry.position}. ${entry.id} ${entry.projectId} ${entryLabel(entry)}${entry.priority !== 0 ? ` (priority ${entry.priority})` : ""}: ${reason}`
