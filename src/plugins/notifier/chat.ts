/**
 * Notifier `chat`: a Slack-compatible incoming webhook (`webhookUrl`, or `webhook`; optional `channel`).
 * Messages are Block Kit: a `text` fallback plus a header (priority emoji and title), the message, a context
 * line (priority, session, project), a PR link, and for `notifyWithActions` an `actions` block of link buttons.
 * Actions without a `url` get no button: an incoming webhook cannot POST to a `callbackEndpoint` on a click.
 * Delivery and retries are those of the webhook notifier (`retries`, `retryDelayMs`).
 */
import * as Effect from "effect/Effect"
import type { EventPriority, NotifierConfig } from "../../config/schema.ts"
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"
import { httpUrl, makeJsonPoster, retryPolicy } from "./http-post.ts"
import type { NotifierConfigError, NotifierShape } from "./Notifier.ts"

export const PRIORITY_EMOJI: Readonly<Record<EventPriority, string>> = {
  urgent: ":rotating_light:",
  action: ":point_right:",
  warning: ":warning:",
  info: ":information_source:"
}

/** Slack's mrkdwn needs `&`, `<` and `>` escaped; Block Kit limits text lengths (header 150, section 3000, button 75). */
const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)
const plain = (text: string, max: number) => ({ type: "plain_text", text: cut(text, max), emoji: true })
const mrkdwn = (text: string) => ({ type: "mrkdwn", text: cut(text, 3000) })

interface Message extends MessageContext {
  readonly text: string
  readonly priority?: EventPriority
  readonly title?: string
  readonly actions?: ReadonlyArray<NotificationAction>
}

const blocks = (m: Message) => {
  const facts = [
    m.priority !== undefined ? `*Priority:* ${m.priority}` : undefined,
    m.sessionId !== undefined ? `*Session:* \`${escape(m.sessionId)}\`` : undefined,
    m.projectId !== undefined ? `*Project:* ${escape(m.projectId)}` : undefined
  ].filter((fact) => fact !== undefined)
  const buttons = (m.actions ?? []).flatMap((a, i) =>
    a.url !== undefined ? [{ type: "button", text: plain(a.label, 75), url: a.url, action_id: `orch-action-${i}` }] : []
  )
  return [
    ...(m.title !== undefined ? [{ type: "header", text: plain(`${m.priority ? `${PRIORITY_EMOJI[m.priority]} ` : ""}${m.title}`, 150) }] : []),
    { type: "section", text: mrkdwn(escape(m.text)) },
    ...(facts.length > 0 ? [{ type: "context", elements: [mrkdwn(facts.join("  |  "))] }] : []),
    ...(m.prUrl !== undefined ? [{ type: "section", text: mrkdwn(`:link: <${m.prUrl}|View pull request>`) }] : []),
    ...(buttons.length > 0 ? [{ type: "actions", elements: buttons.slice(0, 25) }] : [])
  ]
}

const fromNotification = (n: Notification, actions?: ReadonlyArray<NotificationAction>): Message => ({
  text: n.message,
  priority: n.priority,
  title: n.title,
  ...(n.sessionId !== undefined ? { sessionId: n.sessionId } : {}),
  ...(n.projectId !== undefined ? { projectId: n.projectId } : {}),
  ...(n.prUrl !== undefined ? { prUrl: n.prUrl } : {}),
  ...(actions !== undefined ? { actions } : {})
})

export const makeChatNotifier = (name: string, config: NotifierConfig): Effect.Effect<NotifierShape, NotifierConfigError> =>
  Effect.gen(function*() {
    const key = config.webhookUrl === undefined && config.webhook !== undefined ? "webhook" : "webhookUrl"
    const send = makeJsonPoster({ notifier: name, url: yield* httpUrl(name, key, config[key]), headers: {}, ...retryPolicy(config) })
    const defaultChannel = typeof config.channel === "string" && config.channel !== "" ? config.channel : undefined

    const body = (m: Message) => {
      const fallback = m.title !== undefined && m.priority !== undefined
        ? `${PRIORITY_EMOJI[m.priority]} [${m.priority}] ${m.title}: ${m.text}`
        : m.text
      const channel = m.channel ?? defaultChannel
      return { ...(channel !== undefined ? { channel } : {}), text: cut(escape(fallback), 3000), blocks: blocks(m) }
    }

    return {
      name,
      notify: Effect.fn("Notifier.chat.notify")(function*(n: Notification) {
        yield* send(body(fromNotification(n)))
      }),
      notifyWithActions: Effect.fn("Notifier.chat.notifyWithActions")(
        function*(n: Notification, actions: ReadonlyArray<NotificationAction>) {
          yield* send(body(fromNotification(n, actions)))
        }
      ),
      post: Effect.fn("Notifier.chat.post")(function*(message: string, context: MessageContext) {
        yield* send(body({ ...context, text: message }))
      })
    } satisfies NotifierShape
  })
