/**
 * A built-in notifier as a plugin module's component: the Effect notifier behind Promise methods, for callers that
 * do not use Effect. What a caller passes is decoded (NotificationInput); a failure rejects with the notifier's
 * tagged error (a real Error with `_tag` and the message orch prints).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"
import { decodeWith } from "../contract/common.ts"
import { type BuiltinNotifier, MessageContextInput, NotificationActions, NotificationInput } from "../contract/notifier.ts"
import { NotifierError, type NotifierShape } from "../notifier/Notifier.ts"

const decodeInput = <S extends Schema.Decoder<unknown>>(schema: S, notifier: string, what: string) => (value: unknown) =>
  Effect.mapError(decodeWith(schema)(value), (problem) => new NotifierError({ notifier, reason: `${what} is not valid: ${problem}` }))

const toNotification = (input: typeof NotificationInput.Type): Notification => ({
  ...input,
  timestamp: typeof input.timestamp === "string" ? input.timestamp : input.timestamp.toISOString()
})

export const notifierComponent = (shape: NotifierShape): BuiltinNotifier => {
  const notification = (value: unknown) => Effect.map(decodeInput(NotificationInput, shape.name, "the notification")(value), toNotification)
  const actions = decodeInput(NotificationActions, shape.name, "the actions")
  const context = decodeInput(MessageContextInput, shape.name, "the context")
  const run = (effect: Effect.Effect<void, NotifierError>): Promise<void> => Effect.runPromise(effect)
  return {
    name: shape.name,
    notify: (n) => run(Effect.flatMap(notification(n), shape.notify)),
    notifyWithActions: (n, list: ReadonlyArray<NotificationAction>) =>
      run(Effect.gen(function*() {
        const decoded = yield* notification(n)
        const decodedActions = yield* actions(list)
        return yield* shape.notifyWithActions === undefined
          ? shape.notify({ ...decoded, actions: decodedActions })
          : shape.notifyWithActions(decoded, decodedActions)
      })),
    post: (message: string, given: MessageContext = {}) =>
      run(Effect.gen(function*() {
        const text = yield* decodeInput(Schema.String, shape.name, "the message")(message)
        const decoded = yield* context(given)
        if (shape.post === undefined) return yield* new NotifierError({ notifier: shape.name, reason: "it cannot post free-form messages" })
        return yield* shape.post(text, decoded)
      }))
  }
}
