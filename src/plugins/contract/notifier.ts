/** The notifier slot as a plugin module's component sees it: how people are told. */
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"
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
