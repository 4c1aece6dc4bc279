/**
 * Notifier `email`: one plain-text mail per notification through SMTP; a recipient the server refuses fails the
 * delivery, even when others took the mail. nodemailer is imported on the first send,
 * so loading this module costs nothing. Config: `smtp: smtp://USER:PASSWORD@HOST:PORT` (or smtps:// for TLS from
 * the first byte; percent-encode special characters), `from`, and `to` (an address or a list of addresses).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { NotifierConfig } from "../../config/schema.ts"
import type { MessageContext, Notification, NotificationAction } from "../../domain/notification.ts"
import { NotifierConfigError, NotifierError, type NotifierShape } from "./Notifier.ts"

const SMTP_FORMAT = "smtp://USER:PASSWORD@HOST:PORT (or smtps://; percent-encode special characters)"

interface Smtp {
  readonly host: string
  readonly port: number
  readonly secure: boolean
  readonly auth?: { readonly user: string; readonly pass: string }
  /** The server without the password, for messages. */
  readonly display: string
}

const isAddress = (value: unknown): value is string => typeof value === "string" && /^[^\r\n@]+@[^\r\n@]+$/.test(value.trim())

const parseSmtp = (raw: unknown): Smtp | string => {
  if (typeof raw !== "string" || raw === "") return `smtp is required: ${SMTP_FORMAT}`
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `smtp is not a valid URL; expected ${SMTP_FORMAT}` // never echo it: it holds the password
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") return `smtp must start with smtp:// or smtps://, not ${url.protocol}//`
  if (url.hostname === "") return `smtp has no host; expected ${SMTP_FORMAT}`
  if ((url.username === "") !== (url.password === "")) return `smtp needs both a user and a password, or neither; expected ${SMTP_FORMAT}`
  const secure = url.protocol === "smtps:"
  const port = url.port !== "" ? Number(url.port) : secure ? 465 : 587
  let auth: Smtp["auth"]
  try {
    if (url.username !== "") auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
  } catch {
    return `smtp has a badly percent-encoded user or password; expected ${SMTP_FORMAT}`
  }
  const display = `${url.protocol}//${auth !== undefined ? `${auth.user}@` : ""}${url.hostname}:${port}`
  return { host: url.hostname, port, secure, ...(auth !== undefined ? { auth } : {}), display }
}

/** The mail's text: the message, then where it comes from, then the actions as links. */
export const emailBody = (n: Notification, actions: ReadonlyArray<NotificationAction>): string => {
  const facts = [
    n.sessionId !== undefined ? `Session: ${n.sessionId}` : undefined,
    n.projectId !== undefined ? `Project: ${n.projectId}` : undefined,
    n.prUrl !== undefined ? `Pull request: ${n.prUrl}` : undefined
  ].filter((line) => line !== undefined)
  const links = actions.flatMap((a) =>
    a.url !== undefined ? [`- ${a.label}: ${a.url}`] : a.callbackEndpoint !== undefined ? [`- ${a.label}: POST ${a.callbackEndpoint}`] : []
  )
  return [
    n.message,
    ...(facts.length > 0 ? ["", ...facts] : []),
    ...(links.length > 0 ? ["", "Actions:", ...links] : []),
    "",
    "--",
    `orch, ${n.type} at ${n.timestamp}`
  ].join("\n")
}

export const emailSubject = (n: Notification): string => `[orch] ${n.priority.toUpperCase()} ${n.title}`.replace(/[\r\n]+/g, " ")

export const makeEmailNotifier = Effect.fn("makeEmailNotifier")(function*(
  name: string,
  config: NotifierConfig,
  options: { readonly timeout?: Duration.Input } = {}
) {
  const invalid = (reason: string) => new NotifierConfigError({ notifier: name, reason })
  const smtp = parseSmtp(config.smtp)
  if (typeof smtp === "string") return yield* invalid(smtp)
  if (!isAddress(config.from)) return yield* invalid("from must be an email address, like orch@example.com")
  const to = typeof config.to === "string" ? [config.to] : config.to
  if (!Array.isArray(to) || to.length === 0 || !to.every(isAddress)) {
    return yield* invalid("to must be an email address or a non-empty list of them")
  }
  const from = config.from
  const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(15))
  const secrets = smtp.auth !== undefined ? [smtp.auth.pass, encodeURIComponent(smtp.auth.pass)].filter((s) => s !== "") : []
  const failed = (reason: string) => new NotifierError({ notifier: name, reason: secrets.reduce((text, secret) => text.split(secret).join("***"), reason) })

  const send = (subject: string, text: string) =>
    Effect.scoped(Effect.gen(function*() {
      const transport = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const { createTransport } = await import("nodemailer")
            return createTransport({
              host: smtp.host,
              port: smtp.port,
              secure: smtp.secure,
              ...(smtp.auth !== undefined ? { auth: { ...smtp.auth } } : {}),
              // the send as a whole is bounded by `timeout` below; these only stop a socket outliving it for long
              connectionTimeout: Duration.toMillis(timeout) + 5_000,
              greetingTimeout: Duration.toMillis(timeout) + 5_000,
              socketTimeout: Duration.toMillis(timeout) + 5_000
            })
          },
          catch: (cause) => failed(`cannot load nodemailer: ${String(cause)}`)
        }),
        (transport) => Effect.sync(() => transport.close())
      )
      const sent = yield* Effect.tryPromise({
        try: () => transport.sendMail({ from, to: [...to], subject, text }),
        catch: (cause) => failed(`cannot send through ${smtp.display}: ${cause instanceof Error ? cause.message : String(cause)}`)
      })
      // The server may take the mail for some recipients and refuse others: that is no delivery to those.
      const refused = sent.rejected.map(String)
      if (refused.length > 0) {
        return yield* failed(
          `${smtp.display} refused ${refused.join(", ")} (sent to ${sent.accepted.length} other${
            sent.accepted.length === 1 ? "" : "s"
          }); check the addresses in \`to\``
        )
      }
    })).pipe(Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(failed(`sending through ${smtp.display} timed out after ${Duration.format(timeout)}`))
    }))

  const notifyWithActions = Effect.fn("Notifier.email.notifyWithActions")(function*(
    notification: Notification,
    actions: ReadonlyArray<NotificationAction>
  ) {
    yield* send(emailSubject(notification), emailBody(notification, actions))
  })
  const post = Effect.fn("Notifier.email.post")(function*(message: string, context: MessageContext) {
    const firstLine = message.trim().split("\n")[0] ?? ""
    const facts = [
      context.sessionId !== undefined ? `Session: ${context.sessionId}` : undefined,
      context.projectId !== undefined ? `Project: ${context.projectId}` : undefined,
      context.prUrl !== undefined ? `Pull request: ${context.prUrl}` : undefined
    ].filter((line) => line !== undefined)
    const subject = `[orch] ${firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine}`
    yield* send(subject, [message, ...(facts.length > 0 ? ["", ...facts] : [])].join("\n"))
  })
  return {
    name,
    notify: (notification) => notifyWithActions(notification, notification.actions ?? []),
    notifyWithActions,
    post
  } satisfies NotifierShape
})
