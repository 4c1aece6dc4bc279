/** The notifier slot as a plugin module's component sees it: how people are told. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { type MessageContext, type Notification, NotificationAction } from "../../domain/notification.ts"
import { EventPriority } from "../../domain/priority.ts"
import type { Returned } from "./common.ts"

export type { MessageContext, Notification, NotificationAction }

export interface NotifierComponent {
  readonly name?: string
  notify(notification: Notification): Returned<unknown>
  /** A notification with things to do (links, endpoints to POST to). Without it, orch calls `notify`. */
  notifyWithActions?(notification: Notification, actions: ReadonlyArray<NotificationAction>): Returned<unknown>
  /** A free-form message with what it is about; orch itself does not send any yet. */
  post?(message: string, context: MessageContext): Returned<unknown>
}

const ValidDate = Schema.Date.check(Schema.makeFilter((date) => !Number.isNaN(date.getTime()) || "Expected a valid date"))

/**
 * What a built-in notifier module's `notify` takes: `title` and `message`, the rest optional (`id` a fresh UUID,
 * `type` "notification", `priority` "info", `timestamp` now; a Date is written as ISO 8601).
 */
export const NotificationInput = Schema.Struct({
  id: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => randomUUID()))),
  type: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("notification"))),
  priority: EventPriority.pipe(Schema.withDecodingDefaultKey(Effect.succeed("info" as const))),
  title: Schema.String,
  message: Schema.String,
  timestamp: Schema.Union([Schema.String, ValidDate]).pipe(
    Schema.withDecodingDefaultKey(Effect.map(Clock.currentTimeMillis, (now) => new Date(now).toISOString()))
  ),
  sessionId: Schema.optionalKey(Schema.String),
  projectId: Schema.optionalKey(Schema.String),
  prUrl: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  actions: Schema.optionalKey(Schema.Array(NotificationAction))
})
export type NotificationInput = typeof NotificationInput.Encoded

/** What a built-in notifier module's `post` takes besides the message. */
export const MessageContextInput = Schema.Struct({
  sessionId: Schema.optionalKey(Schema.String),
  projectId: Schema.optionalKey(Schema.String),
  prUrl: Schema.optionalKey(Schema.String),
  channel: Schema.optionalKey(Schema.String)
})

export const NotificationActions = Schema.Array(NotificationAction)

/** The component a built-in notifier module's `create` returns: every method, each answering with a Promise. */
export interface BuiltinNotifier extends NotifierComponent {
  readonly name: string
  notify(notification: NotificationInput): Promise<void>
  notifyWithActions(notification: NotificationInput, actions: ReadonlyArray<NotificationAction>): Promise<void>
  post(message: string, context?: MessageContext): Promise<void>
}
