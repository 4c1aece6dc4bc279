/**
 * Notifier `webhook`: POSTs JSON to any HTTP(S) endpoint, with the configured `headers` on every request and
 * retries (`retries`, default 2; `retryDelayMs`, default 1000, doubled per retry). Bodies:
 *
 * - `notify`:            `{"type":"notification","event":{id,type,priority,sessionId,projectId,timestamp,message,data}}`
 * - `notifyWithActions`: `{"type":"notification_with_actions","event":{…},"actions":[{label,url?,callbackEndpoint?}]}`
 * - `post`:              `{"type":"message","message":…,"context":{sessionId?,projectId?,prUrl?,channel?}}`
 *
 * Keys whose value is undefined are left out (JSON.stringify drops them).
 */
import * as Effect from "effect/Effect"
import type { NotifierConfig } from "../../config/schema.ts"
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"
import { httpUrl, makeJsonPoster, retryPolicy, stringHeaders } from "./http-post.ts"
import type { NotifierConfigError, NotifierShape } from "./Notifier.ts"

const event = (n: Notification) => ({
  id: n.id,
  type: n.type,
  priority: n.priority,
  sessionId: n.sessionId,
  projectId: n.projectId,
  timestamp: n.timestamp,
  message: n.message,
  data: n.data
})

const action = (a: NotificationAction) => ({ label: a.label, url: a.url, callbackEndpoint: a.callbackEndpoint })

export const makeWebhookNotifier = (name: string, config: NotifierConfig): Effect.Effect<NotifierShape, NotifierConfigError> =>
  Effect.gen(function*() {
    const send = makeJsonPoster({
      notifier: name,
      url: yield* httpUrl(name, "url", config.url),
      headers: stringHeaders(config.headers),
      ...retryPolicy(config)
    })
    return {
      name,
      notify: Effect.fn("Notifier.webhook.notify")(function*(n: Notification) {
        yield* send({ type: "notification", event: event(n) })
      }),
      notifyWithActions: Effect.fn("Notifier.webhook.notifyWithActions")(
        function*(n: Notification, actions: ReadonlyArray<NotificationAction>) {
          yield* send({ type: "notification_with_actions", event: event(n), actions: actions.map(action) })
        }
      ),
      post: Effect.fn("Notifier.webhook.post")(function*(message: string, context: MessageContext) {
        const { sessionId, projectId, prUrl, channel } = context
        yield* send({ type: "message", message, context: { sessionId, projectId, prUrl, channel } })
      })
    } satisfies NotifierShape
  })
