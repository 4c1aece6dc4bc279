/** `orch notify` (a test notification through the routing) and `orch notifications` (the hosted inbox). */
import { Argument, Command, Flag } from "effect/cli"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { Host } from "../config/host.ts"
import { dataDir } from "../store/paths.ts"
import { age, table } from "./format.ts"

export class NotDelivered extends Schema.TaggedError<NotDelivered>()("NotDelivered", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return this.reason
  }
}

/**
 * What `orch notify` says after the per-notifier lines when not every notifier delivered (it then exits 1), or
 * undefined when all did. A test of the routing that finds one broken route has failed, even if others worked.
 */
export const notDelivered = (deliveries: ReadonlyArray<{ readonly notifier: string; readonly ok: boolean }>): string | undefined => {
  const failed = deliveries.filter((d) => !d.ok).map((d) => d.notifier)
  const delivered = deliveries.filter((d) => d.ok).map((d) => d.notifier)
  if (failed.length === 0) return undefined
  return delivered.length === 0
    ? `no notifier delivered it (${failed.join(", ")} failed, reasons above); fix them or change notificationRouting`
    : `${failed.length} of ${deliveries.length} notifiers failed (${failed.join(", ")}, reasons above); it reached ${delivered.join(", ")}`
}

export class UnknownNotifier extends Schema.TaggedError<UnknownNotifier>()("UnknownNotifier", {
  name: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `no notifier "${this.name}" (configured: ${this.known.join(", ")})`
  }
}

export const notify = Command.make(
  "notify",
  {
    priority: Flag.Literals("priority", ["urgent", "action", "warning", "info"]).pipe(
      Flag.withDefault("info"),
      Flag.withDescription("The priority to route by")
    ),
    notifier: Flag.String("notifier").pipe(Flag.optional, Flag.withDescription("Send to this notifier only, whatever the routing")),
    message: Argument.String("message").pipe(Argument.variadic(), Argument.withDescription("The message"))
  },
  Effect.fn("cli.notify")(function*({ priority, notifier, message }) {
    const [{ loadConfig }, { makeInbox }, { buildNotifiers }, { deliverable, NotifierRouter }, { EventLog }, { newNotification }] = yield* Effect.promise(() =>
      Promise.all([
        import("../config/load.ts"),
        import("../store/Inbox.ts"),
        import("../plugins/notifier/registry.ts"),
        import("../../actors/notifier-router.ts"),
        import("../store/EventLog.ts"),
        import("../domain/notification.ts")
      ])
    )
    const config = yield* loadConfig()
    const notifiers = yield* buildNotifiers(config, makeInbox(dataDir(yield* Host)))
    const only = notifier._tag === "Some" ? notifier.value : undefined
    if (only !== undefined && !notifiers.has(only)) return yield* new UnknownNotifier({ name: only, known: [...notifiers.keys()] })
    // Notifiers that cannot deliver here are left out of a route that has another one (the router does the same).
    const { skipped } = only !== undefined ? { skipped: [] } : deliverable(config.notificationRouting[priority], notifiers)
    for (const { notifier, reason } of skipped) yield* Console.log(`${notifier}: left out: ${reason}`)
    const deliveries = yield* Effect.gen(function*() {
      const router = yield* NotifierRouter.make(notifiers, config.notificationRouting)
      const text = message.join(" ").trim() || "This is a test notification from orch."
      return yield* router.deliver(yield* newNotification({ type: "test", priority, title: "orch test notification", message: text }), only)
    }).pipe(Effect.provide(EventLog.layer), Effect.scoped)
    if (deliveries.length === 0) return yield* new NotDelivered({ reason: `priority ${priority} is routed to no notifier (see notificationRouting)` })
    for (const delivery of deliveries) yield* Console.log(delivery.ok ? `${delivery.notifier}: delivered` : `${delivery.notifier}: failed: ${delivery.reason}`)
    const reason = notDelivered(deliveries)
    if (reason !== undefined) return yield* new NotDelivered({ reason })
  })
).pipe(Command.withDescription("Send a test notification through the routing (or one notifier) and report each delivery"))

export const notifications = Command.make(
  "notifications",
  {
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON")),
    unread: Flag.Boolean("unread").pipe(Flag.withDefault(false), Flag.withDescription("Only unread notifications")),
    markRead: Flag.Boolean("mark-read").pipe(Flag.withDefault(false), Flag.withDescription("Mark every notification read"))
  },
  Effect.fn("cli.notifications")(function*({ json, unread, markRead }) {
    const { makeInbox } = yield* Effect.promise(() => import("../store/Inbox.ts"))
    const inbox = makeInbox(dataDir(yield* Host))
    const entries = yield* inbox.list({ unreadOnly: unread })
    if (markRead) yield* inbox.markAllRead()
    if (json) return yield* Console.log(JSON.stringify(entries))
    if (entries.length === 0) return yield* Console.log(unread ? "No unread notifications." : "No notifications.")
    const now = yield* Clock.currentTimeMillis
    yield* Console.log(table(
      ["", "AGE", "PRIORITY", "SESSION", "TITLE", "MESSAGE"],
      entries.map((n) => [n.read ? " " : "•", age(n.timestamp, now), n.priority, n.sessionId ?? "-", n.title, n.message.split("\n")[0]!])
    ))
  })
).pipe(Command.withDescription("List the hosted inbox (newest first); --mark-read clears the unread count"))
