/**
 * The dashboard's payloads, as Schemas. Sessions, events and notifications are the very Schemas the CLI prints
 * (`orch status --json`, events.jsonl, `orch notifications --json`); the rest wraps them.
 */
import * as Schema from "effect/Schema"
import { ConflictPrediction } from "../domain/conflict.ts"
import { OrchEvent } from "../domain/event.ts"
import { Notification } from "../domain/notification.ts"
import { SessionRecord } from "../domain/session.ts"

export const InboxEntry = Schema.Struct({ ...Notification.fields, read: Schema.Boolean })
export type InboxEntry = typeof InboxEntry.Type

/** The hosted inbox as the page shows it: the unread count and the newest entries. */
export const InboxState = Schema.Struct({ unread: Schema.Int, entries: Schema.Array(InboxEntry) })
export type InboxState = typeof InboxState.Type

/** A queued entry as the board shows it: its place, what it is for, and the budget it waits on (docs/queue.md). */
export const QueuedEntry = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  /** `42`, or `task fix-the-login`. */
  label: Schema.String,
  priority: Schema.Int,
  position: Schema.Int,
  waiting: Schema.String
})
export type QueuedEntry = typeof QueuedEntry.Type

/** A car of a project's merge train as the board shows it: its place and what it waits on (docs/supervisor.md "Merge train"). */
export const TrainCarView = Schema.Struct({
  projectId: Schema.String,
  sessionId: Schema.String,
  prNumber: Schema.Int,
  branch: Schema.String,
  position: Schema.Int,
  waitingOn: Schema.String
})
export type TrainCarView = typeof TrainCarView.Type

/** Everything the board needs at once: every session, each one's last event, the inbox, the queue, the merge trains, the predicted conflicts. */
export const Snapshot = Schema.Struct({
  sessions: Schema.Array(SessionRecord),
  lastEvents: Schema.Record(Schema.String, OrchEvent),
  inbox: InboxState,
  queue: Schema.Array(QueuedEntry),
  train: Schema.Array(TrainCarView),
  /** The supervisor's conflict prediction, as conflicts.json holds it (docs/supervisor.md, "Predicted conflicts"). */
  conflicts: Schema.Array(ConflictPrediction)
})
export type Snapshot = typeof Snapshot.Type

/** What the live stream (`GET /api/events`, Server-Sent Events) carries; the SSE event name is `kind`. */
export const LiveMessage = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("snapshot"), ...Snapshot.fields }),
  /** A record as just written; `record: null` when its session was removed (an undone spawn). */
  Schema.Struct({ kind: Schema.Literal("session"), sessionId: Schema.String, record: Schema.NullOr(SessionRecord) }),
  Schema.Struct({ kind: Schema.Literal("event"), event: OrchEvent }),
  Schema.Struct({ kind: Schema.Literal("inbox"), ...InboxState.fields }),
  /** The whole queue, whenever it or what its entries wait on changed. */
  Schema.Struct({ kind: Schema.Literal("queue"), entries: Schema.Array(QueuedEntry) }),
  /** Every project's merge train, car by car, whenever one changed. */
  Schema.Struct({ kind: Schema.Literal("train"), cars: Schema.Array(TrainCarView) }),
  /** Every predicted conflict, whenever they changed. */
  Schema.Struct({ kind: Schema.Literal("conflicts"), predictions: Schema.Array(ConflictPrediction) }),
  /** The last message: the supervisor is stopping, and the stream ends now. */
  Schema.Struct({ kind: Schema.Literal("stopping") })
])
export type LiveMessage = typeof LiveMessage.Type

export const ProjectSummary = Schema.Struct({ id: Schema.String, name: Schema.String, repo: Schema.String })
export type ProjectSummary = typeof ProjectSummary.Type

/** What the page is told in its HTML: where the terminal sockets are, which projects exist. */
export const Boot = Schema.Struct({
  version: Schema.String,
  terminalPort: Schema.Int,
  projects: Schema.Array(ProjectSummary),
  /** The hosts sessions may run on (local first), when other machines are configured: the board filters by them. */
  hosts: Schema.optionalKey(Schema.Array(Schema.String))
})
export type Boot = typeof Boot.Type

export const SendRequest = Schema.Struct({ message: Schema.String.check(Schema.isMinLength(1, { message: "the message is empty" })) })
export const MarkReadRequest = Schema.Struct({
  ids: Schema.optionalKey(Schema.Array(Schema.String)),
  all: Schema.optionalKey(Schema.Boolean)
})

export const Sent = Schema.Struct({ sent: Schema.Boolean })
/** A merge from the page: merged, or (a project with a merge train) `merged: false` and its place in the train. */
export const Merged = Schema.Struct({ merged: Schema.Boolean, prNumber: Schema.Int, train: Schema.optionalKey(Schema.Struct({ position: Schema.Int })) })
export const Opened = Schema.Struct({ opened: Schema.String })

/**
 * Every failure of the API (and of the webhook receiver): `error`, a snake_case code for scripts
 * (`unauthorized`, `session_not_found`, `merge_refused`; api-failure.ts), and `message`, a sentence for people.
 */
export const ApiError = Schema.Struct({ error: Schema.String, message: Schema.String })
export type ApiError = typeof ApiError.Type

/** The webhook receiver's answers that are not failures: a delivery it follows (202), or one it acknowledges and ignores (200). */
export const WebhookAccepted = Schema.Struct({ accepted: Schema.String })
export const WebhookIgnored = Schema.Struct({ message: Schema.String })
