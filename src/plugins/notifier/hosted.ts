/**
 * Notifier `hosted`: the supervisor's own inbox (see inbox.ts). With `url` set (an ntfy-compatible topic, e.g.
 * https://ntfy.sh/mytopic) each notification is also POSTed there, with `token` as a Bearer token when given.
 * The inbox entry is written first and kept even when the forward fails.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import type { NotifierConfig } from "../../config/schema.ts"
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"
import type { InboxShape } from "../../store/Inbox.ts"
import { NotifierConfigError, NotifierError, type NotifierShape } from "./Notifier.ts"

const NTFY_PRIORITY = { urgent: "5", action: "4", warning: "3", info: "2" } as const
const NTFY_TAG = { urgent: "rotating_light", action: "point_right", warning: "warning", info: "information_source" } as const

/** A header value: one line, and non-ASCII text as an RFC 2047 encoded word (ntfy decodes it). */
export const headerValue = (text: string): string => {
  const line = text.replace(/[\r\n]+/g, " ")
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?UTF-8?B?${Buffer.from(line, "utf8").toString("base64")}?=`
}

export const ntfyHeaders = (
  n: Notification,
  actions: ReadonlyArray<NotificationAction>,
  token: string | undefined
): Record<string, string> => {
  const views = actions.flatMap((a) => a.url !== undefined ? [`view, ${a.label.replace(/[,;"']/g, " ")}, ${a.url}`] : []).slice(0, 3)
  return {
    Title: headerValue(n.title),
    Priority: NTFY_PRIORITY[n.priority],
    Tags: headerValue([NTFY_TAG[n.priority], n.type].join(",")),
    ...(n.prUrl !== undefined ? { Click: headerValue(n.prUrl) } : {}),
    ...(views.length > 0 ? { Actions: headerValue(views.join("; ")) } : {}),
    ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {})
  }
}

const TOPIC_EXAMPLE = "an ntfy topic, like https://ntfy.sh/mytopic"

/** The ntfy topic URL, undefined when there is none, or what is wrong with it. */
const parseTopic = (raw: unknown): URL | undefined | string => {
  if (raw === undefined) return undefined
  let url: URL
  try {
    if (typeof raw !== "string") throw new TypeError()
    url = new URL(raw)
  } catch {
    return `url must be the http(s) URL of ${TOPIC_EXAMPLE}`
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `url must be http or https, not ${url.protocol}; expected ${TOPIC_EXAMPLE}`
  if (url.username !== "" || url.password !== "") return "url must not hold credentials; put an access token in `token`"
  return url
}

export const makeHostedNotifier = Effect.fn("makeHostedNotifier")(function*(
  name: string,
  config: NotifierConfig,
  inbox: InboxShape,
  options: { readonly timeout?: Duration.Input } = {}
) {
  const invalid = (reason: string) => new NotifierConfigError({ notifier: name, reason })
  const url = parseTopic(config.url)
  if (typeof url === "string") return yield* invalid(url)
  if (config.token !== undefined && (typeof config.token !== "string" || config.token === "")) {
    return yield* invalid("token must be a non-empty string (an ntfy access token)")
  }
  const token = config.token as string | undefined
  const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))
  const failed = (reason: string) => new NotifierError({ notifier: name, reason })

  const forward = (target: URL, n: Notification, actions: ReadonlyArray<NotificationAction>) =>
    Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(target, { method: "POST", headers: ntfyHeaders(n, actions, token), body: n.message, signal })
        return { status: response.status, text: await response.text() }
      },
      catch: (cause) =>
        failed(
          `cannot reach ${target.origin}: ${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)}`
        )
    }).pipe(
      Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail(failed(`${target.origin} did not answer within ${Duration.format(timeout)}`)) }),
      Effect.flatMap(({ status, text }) =>
        status >= 200 && status < 300
          ? Effect.void
          : Effect.fail(failed(`${target.origin}${target.pathname} answered HTTP ${status}${text.trim() !== "" ? `: ${text.trim().slice(0, 200)}` : ""}`))
      )
    )

  const notifyWithActions = Effect.fn("Notifier.hosted.notifyWithActions")(function*(
    notification: Notification,
    actions: ReadonlyArray<NotificationAction>
  ) {
    const entry = actions.length > 0 ? { ...notification, actions } : notification
    yield* inbox.add(entry).pipe(Effect.mapError((error) => failed(error.message)))
    if (url !== undefined) yield* forward(url, entry, actions)
  })
  const post = Effect.fn("Notifier.hosted.post")(function*(message: string, context: MessageContext) {
    const now = yield* Clock.currentTimeMillis
    yield* notifyWithActions({
      id: `msg-${randomUUID()}`,
      type: "message",
      priority: "info",
      title: (message.trim().split("\n")[0] ?? "").slice(0, 120),
      message,
      timestamp: new Date(now).toISOString(),
      ...(context.sessionId !== undefined ? { sessionId: context.sessionId } : {}),
      ...(context.projectId !== undefined ? { projectId: context.projectId } : {}),
      ...(context.prUrl !== undefined ? { prUrl: context.prUrl } : {})
    }, [])
  })
  return {
    name,
    notify: (notification) => notifyWithActions(notification, notification.actions ?? []),
    notifyWithActions,
    post
  } satisfies NotifierShape
})
