/** The notifier slot: one way of telling people (the hosted inbox, the desktop, chat, a webhook, email). */
import type * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"

/** A notifier could not deliver. The router records it as a `notification.failed` event. */
export class NotifierError extends Schema.TaggedError<NotifierError>()("NotifierError", {
  notifier: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `notifier ${this.notifier}: ${this.reason}`
  }
}

/** A notifier's settings are wrong (e.g. a webhook `url` that is not http/https): it cannot be created. */
export class NotifierConfigError extends Schema.TaggedError<NotifierConfigError>()("NotifierConfigError", {
  notifier: Schema.String,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `notifier ${this.notifier}: ${this.reason}`
  }
}

export interface NotifierShape {
  /** The notifier's name in the config (its key under `notifiers`, or the built-in's name). */
  readonly name: string
  readonly notify: (notification: Notification) => Effect.Effect<void, NotifierError>
  readonly notifyWithActions?: (notification: Notification, actions: ReadonlyArray<NotificationAction>) => Effect.Effect<void, NotifierError>
  readonly post?: (message: string, context: MessageContext) => Effect.Effect<void, NotifierError>
  /**
   * Why it cannot deliver anything on this machine (e.g. no `notify-send`), known without trying. The router then
   * leaves it out of a route that has another notifier, and says so once.
   */
  readonly unavailable?: string
}
