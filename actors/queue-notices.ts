/**
 * What people are told of the queue by admission: queued work that left the queue because it could never start,
 * and a place (a host, this machine) that cannot start a project's sessions, once, when it is first held back.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { Hold } from "../src/domain/holds.ts"
import { newNotification, type Notification } from "../src/domain/notification.ts"
import { entryLabel, type QueueEntry } from "../src/domain/queue.ts"
import { clockTime } from "../src/domain/rate-limit.ts"

export const droppedNotice = (entry: QueueEntry, reason: string): Effect.Effect<Notification> =>
  newNotification({
    type: "queue.dropped",
    priority: "warning",
    title: `${entry.projectId} ${entryLabel(entry)}: queued work could not start`,
    message: `${entry.id} left the queue: ${reason}. Fix that, then queue it again (\`orch queue add ${entry.projectId} …\`).`,
    projectId: entry.projectId
  })

/** The one notification a new hold gets: what failed where, and when orch tries again (or what else happens meanwhile). */
export const holdNotice = Effect.fnUntraced(function*(hold: Hold, hostsConfigured: boolean) {
  const where = hold.host === undefined ? undefined : hold.host === "local" ? "this machine" : `host ${hold.host}`
  const when = clockTime(yield* Clock.currentTimeMillis)(Date.parse(hold.retryAt))
  const meanwhile = where !== undefined && hostsConfigured
    ? `Its queued work goes to another host meanwhile; orch tries ${where} again ${when} (\`orch hosts\` shows why).`
    : `Its queued work waits; orch tries again ${when}, or at once when the project's config changes.`
  return yield* newNotification({
    type: "queue.held",
    priority: "warning",
    title: where === undefined ? `${hold.project}: its queued work is held` : `${hold.project}: ${where} could not start its session`,
    message: `orch could not start a session of ${hold.project}${where === undefined ? "" : ` on ${where}`}: ${hold.reason}. ${meanwhile}`,
    projectId: hold.project
  })
})
