/** The notifier slot: one way of telling people (the hosted inbox, the desktop, chat, a webhook, email). */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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

/** A notifier for tests: it records what it is given, in order. */
export interface TestNotifier extends NotifierShape {
  readonly received: Array<Notification>
  /** What `post` was given. */
  readonly posts: Array<{ readonly message: string; readonly context: MessageContext }>
}

export const makeTestNotifier = (name = "test"): TestNotifier => {
  const received: Array<Notification> = []
  const posts: Array<{ readonly message: string; readonly context: MessageContext }> = []
  return {
    name,
    received,
    posts,
    notify: (notification) => Effect.sync(() => void received.push(notification)),
    notifyWithActions: (notification, actions) => Effect.sync(() => void received.push({ ...notification, actions })),
    post: (message, context) => Effect.sync(() => void posts.push({ message, context }))
  }
}

/**
 * One notifier, as a service: what a program's Layer for the slot provides (`orch/effect`). The notifiers a config
 * uses are many at once (the router sends each notification to those its priority's route names), so orch builds
 * one such Layer per notifier name that resolves to it.
 */
export class Notifier extends Context.Service<Notifier, NotifierShape>()("orch/plugins/Notifier") {
  /** The recording notifier (pass one to read what it received). */
  static readonly layerTest = (notifier: TestNotifier = makeTestNotifier()) => Layer.succeed(Notifier, notifier)
}
