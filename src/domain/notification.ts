/** What orch tells people: a notification at a priority, routed to notifiers (see actors/notifier-router.ts). */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { EventPriority } from "./priority.ts"

export const NotificationAction = Schema.Struct({
  label: Schema.String,
  url: Schema.optionalKey(Schema.String),
  /** An orch endpoint that performs the action when POSTed to (e.g. merge the PR). */
  callbackEndpoint: Schema.optionalKey(Schema.String)
})
export type NotificationAction = typeof NotificationAction.Type

export const Notification = Schema.Struct({
  /** Unique per notification. */
  id: Schema.String,
  /** The event that caused it, e.g. `session.stuck` or `reaction.escalated`. */
  type: Schema.String,
  priority: EventPriority,
  title: Schema.String,
  message: Schema.String,
  /** ISO 8601 UTC. */
  timestamp: Schema.String,
  sessionId: Schema.optionalKey(Schema.String),
  projectId: Schema.optionalKey(Schema.String),
  prUrl: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  actions: Schema.optionalKey(Schema.Array(NotificationAction))
})
export type Notification = typeof Notification.Type

/** Context of a free-form message (`post`). */
export interface MessageContext {
  readonly sessionId?: string
  readonly projectId?: string
  readonly prUrl?: string
  readonly channel?: string
}

/** A new notification, stamped now with a fresh id. */
export const newNotification = (fields: Omit<Notification, "id" | "timestamp">): Effect.Effect<Notification> =>
  Effect.map(Clock.currentTimeMillis, (now) => ({ id: randomUUID(), timestamp: new Date(now).toISOString(), ...fields }))
