/**
 * The notifier router: a notification goes to the notifiers `notificationRouting` names for its priority.
 * Notifiers run concurrently, each with its own timeout, in fibers the router owns, so a slow or failing
 * notifier never delays the session actor that raised the notification. Every delivery and every failure is
 * an event (a background failure is logged too); repeats of the same notification within a window are coalesced,
 * and a burst of one priority and kind is told as one (rules/notification-groups.ts).
 * A config reload gives it new notifiers and routing; each notification is routed by those in force when it is sent.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { randomUUID } from "node:crypto"
import type { EventPriority } from "../src/config/schema.ts"
import type { Notification } from "../src/domain/notification.ts"
import type { NotifierShape } from "../src/plugins/notifier/Notifier.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { GROUP_WINDOW_MS, groupedNotification, groupKey } from "./rules/notification-groups.ts"

export const NOTIFIER_TIMEOUT = "60 seconds"
export const COALESCE_WINDOW_MS = 60_000

export interface Delivery {
  readonly notifier: string
  readonly ok: boolean
  readonly reason?: string
}

export interface NotifierRouterShape {
  /** Routes and sends in the background; returns at once and never fails. */
  readonly notify: (notification: Notification) => Effect.Effect<void>
  /** Routes (or sends to one named notifier) and waits for every delivery; for `orch notify`. */
  readonly deliver: (notification: Notification, only?: string) => Effect.Effect<ReadonlyArray<Delivery>>
  /** Waits until every notification sent in the background has been delivered (or failed): a receipt (those held for a group are sent when its window ends). */
  readonly settled: Effect.Effect<void>
  /** From now on, notifications go to `notifiers` by `routing` (a config reload); deliveries under way finish. */
  readonly reconfigure: (notifiers: ReadonlyMap<string, NotifierShape>, routing: Routing) => Effect.Effect<void>
}

type Routing = Readonly<Record<EventPriority, ReadonlyArray<string>>>

/**
 * The notifiers a notification goes to: its route, less those that cannot deliver on this machine (a desktop
 * notifier without `notify-send`) while another one in the route can. A route of only such notifiers keeps them,
 * so their failure is recorded as it happens.
 */
export const deliverable = (route: ReadonlyArray<string>, notifiers: ReadonlyMap<string, NotifierShape>) => {
  const cannot = (name: string) => notifiers.get(name)?.unavailable
  const send = route.filter((name) => cannot(name) === undefined)
  if (send.length === 0) return { send: route, skipped: [] }
  return { send, skipped: route.flatMap((name) => cannot(name) !== undefined ? [{ notifier: name, reason: cannot(name)! }] : []) }
}

export class NotifierRouter extends Context.Service<NotifierRouter, NotifierRouterShape>()("orch/actors/NotifierRouter") {
  static readonly make = Effect.fnUntraced(function*(notifiers: ReadonlyMap<string, NotifierShape>, routing: Routing) {
    const events = yield* EventLog
    const settings = yield* Ref.make({ notifiers, routing })
    const fibers = yield* FiberSet.make()
    /** The bursts being gathered: key → the notifications held since the first went out; each ends after GROUP_WINDOW_MS. */
    const groups = new Map<string, Array<Notification>>()
    const windows = yield* FiberSet.make()
    const recent = new Map<string, number>()
    /** Notifiers left out of routes because they cannot deliver here: said once each, until the next reconfigure. */
    const toldUnavailable = new Set<string>()

    const tellUnavailable = (skipped: ReadonlyArray<{ readonly notifier: string; readonly reason: string }>) =>
      Effect.forEach(skipped.filter(({ notifier }) => !toldUnavailable.has(notifier)), ({ notifier, reason }) => {
        toldUnavailable.add(notifier)
        const message = `${notifier} cannot deliver on this machine (${reason}); notifications routed to it go to the other notifiers of their route`
        return Effect.logWarning(`notifier ${message}`).pipe(
          Effect.andThen(events.append({ type: "notifier.unavailable", message, data: { notifier, reason } })),
          Effect.catch((error) => Effect.logError(`could not record that notifier ${notifier} is unavailable: ${error.message}`))
        )
      }, { discard: true })

    const sendOne = (notifiers: ReadonlyMap<string, NotifierShape>, name: string, notification: Notification): Effect.Effect<Delivery> => {
      const notifier = notifiers.get(name)
      const base = { sessionId: notification.sessionId, projectId: notification.projectId }
      const send = notifier === undefined
        ? Effect.fail(`no notifier named "${name}"`)
        : (notification.actions !== undefined && notification.actions.length > 0 && notifier.notifyWithActions !== undefined
          ? notifier.notifyWithActions(notification, notification.actions)
          : notifier.notify(notification)).pipe(
            Effect.mapError((error) => error.reason),
            Effect.timeoutOrElse({ duration: NOTIFIER_TIMEOUT, orElse: () => Effect.fail(`no answer within ${NOTIFIER_TIMEOUT}`) })
          )
      return send.pipe(
        Effect.as<Delivery>({ notifier: name, ok: true }),
        Effect.catch((reason: string) => Effect.succeed<Delivery>({ notifier: name, ok: false, reason })),
        Effect.tap((delivery) =>
          events.append({
            type: delivery.ok ? "notification.sent" : "notification.failed",
            ...(base.sessionId !== undefined ? { sessionId: base.sessionId } : {}),
            ...(base.projectId !== undefined ? { projectId: base.projectId } : {}),
            message: delivery.ok ? notification.title : `${name}: ${delivery.reason}`,
            data: {
              notifier: name,
              notificationId: notification.id,
              priority: notification.priority,
              type: notification.type,
              ...(notification.data?.grouped !== undefined ? { grouped: notification.data.grouped } : {})
            }
          }).pipe(Effect.catch((error) => Effect.logError(`could not record the delivery of notification ${notification.id} to ${name}: ${error.message}`)))
        )
      )
    }

    /** In the background nobody reads the deliveries: a failed one is logged as well as recorded. */
    const logFailures = (notification: Notification) => (deliveries: ReadonlyArray<Delivery>) =>
      Effect.forEach(
        deliveries.filter((d) => !d.ok),
        (d) => Effect.logWarning(`notifier ${d.notifier} could not deliver "${notification.title}": ${d.reason}`),
        { discard: true }
      )

    const deliver = Effect.fn("NotifierRouter.deliver")(function*(notification: Notification, only?: string) {
      const { notifiers, routing } = yield* Ref.get(settings)
      const { send, skipped } = only !== undefined ? { send: [only], skipped: [] } : deliverable(routing[notification.priority], notifiers)
      yield* tellUnavailable(skipped)
      return yield* Effect.forEach(send, (name) => sendOne(notifiers, name, notification), { concurrency: "unbounded" })
    })

    /** Whether the same notification went out within the window (and so this one is coalesced into it). */
    const isRepeat = Effect.fnUntraced(function*(notification: Notification) {
      const now = yield* Clock.currentTimeMillis
      const key = `${notification.type}|${notification.sessionId ?? ""}|${notification.priority}|${notification.message}`
      for (const [k, at] of recent) if (now - at >= COALESCE_WINDOW_MS) recent.delete(k)
      if (recent.has(key)) return true
      recent.set(key, now)
      return false
    })

    const send = (notification: Notification) => FiberSet.run(fibers, Effect.flatMap(deliver(notification), logFailures(notification)))

    /** What a group held, as one notification (or none). */
    const heldOf = Effect.fnUntraced(function*(key: string) {
      const held = groups.get(key) ?? []
      groups.delete(key)
      return groupedNotification(held, randomUUID(), new Date(yield* Clock.currentTimeMillis).toISOString())
    })

    const notify = Effect.fn("NotifierRouter.notify")(function*(notification: Notification) {
      if (yield* isRepeat(notification)) return
      const key = groupKey(notification)
      const held = groups.get(key)
      if (held !== undefined) return void held.push(notification)
      groups.set(key, [])
      yield* send(notification)
      yield* FiberSet.run(
        windows,
        Effect.sleep(GROUP_WINDOW_MS).pipe(Effect.andThen(heldOf(key)), Effect.flatMap((n) => (n === undefined ? Effect.void : send(n))))
      )
    })

    // Stopping: what groups still hold is told now (a bounded wait), not lost with their windows.
    yield* Effect.addFinalizer(() =>
      Effect.forEach(
        [...groups.keys()],
        (key) => Effect.flatMap(heldOf(key), (n) => (n === undefined ? Effect.void : Effect.flatMap(deliver(n), logFailures(n)))),
        {
          concurrency: "unbounded",
          discard: true
        }
      ).pipe(
        Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.logWarning("notifications held for a group were not all told before orch stopped") })
      )
    )

    return NotifierRouter.of({
      notify,
      deliver,
      settled: FiberSet.awaitEmpty(fibers),
      reconfigure: Effect.fn("NotifierRouter.reconfigure")(function*(notifiers: ReadonlyMap<string, NotifierShape>, routing: Routing) {
        yield* Ref.set(settings, { notifiers, routing })
        toldUnavailable.clear()
      })
    })
  })

  static readonly layer = (notifiers: ReadonlyMap<string, NotifierShape>, routing: Routing) =>
    Layer.effect(NotifierRouter, NotifierRouter.make(notifiers, routing))
}
