/**
 * The event log's lines. One JSON object per line with `timestamp` (ISO 8601 UTC) and `type`, plus the fields
 * of the spec; every type is documented in docs/events.md.
 */
import * as Schema from "effect/Schema"

export const EVENT_TYPES = [
  "session.spawned",
  "session.spawn_failed",
  "session.message_sent",
  "session.killed",
  "session.restored",
  "session.cleaned",
  "session.rescued",
  "session.reconciled",
  "session.removed",
  "session.working",
  "session.ready",
  "session.idle",
  "session.stuck",
  "session.needs_input",
  "session.rate_limited",
  "session.reported_done",
  "session.exited",
  "session.conflict_predicted",
  "session.conflict_cleared",
  "pr.created",
  "ci.failed",
  "ci.passed",
  "review.changes_requested",
  "review.approved",
  "merge.conflicts",
  "pr.merged",
  "pr.closed",
  "reaction.triggered",
  "reaction.escalated",
  "notification.sent",
  "notification.failed",
  "notifier.unavailable",
  "supervisor.started",
  "supervisor.stopped",
  "supervisor.escalated",
  "supervisor.adopted",
  "supervisor.error",
  "session.adopted",
  "host.down",
  "host.up",
  "session.orphaned",
  "tracker.update_failed",
  "config.applied",
  "config.rejected",
  "queue.added",
  "queue.admitted",
  "queue.dropped",
  "queue.recovered",
  "queue.held",
  "queue.resumed",
  "train.joined",
  "train.updated",
  "train.merged",
  "train.left"
] as const
export const EventType = Schema.Literals(EVENT_TYPES)
export type EventType = typeof EventType.Type

export const OrchEvent = Schema.Struct({
  timestamp: Schema.String,
  type: EventType,
  sessionId: Schema.optionalKey(Schema.String),
  projectId: Schema.optionalKey(Schema.String),
  issueId: Schema.optionalKey(Schema.String),
  prNumber: Schema.optionalKey(Schema.Int),
  reaction: Schema.optionalKey(Schema.String),
  action: Schema.optionalKey(Schema.String),
  message: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
export type OrchEvent = typeof OrchEvent.Type
/** An event before it is stamped. */
export type NewEvent = Omit<OrchEvent, "timestamp">
