/**
 * Notifications of one priority and kind that come in a burst (300 agents found dead in one probe round) are told
 * as one: the first goes out at once, those that follow it within the window are held, then sent as one notification
 * naming how many and the first few sessions (a lone follower is sent as it is). Each session's own events and its
 * line in `orch status` are untouched. Pure.
 */
import type { Notification } from "../../src/domain/notification.ts"

/** How long after a notification others of its priority and kind are gathered into one. */
export const GROUP_WINDOW_MS = 5_000

/** How many sessions a grouped notification names before "and N more". */
export const NAMED_IN_GROUP = 5

/** Notifications of the same key are gathered together. */
export const groupKey = (notification: Notification): string => `${notification.priority}|${notification.type}`

/** A notification's title without the session id it starts with ("app-3: agent exited" → "agent exited"). */
const bareTitle = (notification: Notification): string => {
  const prefix = notification.sessionId === undefined ? undefined : `${notification.sessionId}: `
  return prefix !== undefined && notification.title.startsWith(prefix) ? notification.title.slice(prefix.length) : notification.title
}

/** What a held notification is named by in a group: its session, or (none) its title. */
const nameOf = (notification: Notification): string => notification.sessionId ?? bareTitle(notification)

/** What the held notifications become: the one, or one naming them all (`id` and `timestamp` are the new one's). */
export const groupedNotification = (held: ReadonlyArray<Notification>, id: string, timestamp: string): Notification | undefined => {
  const [first] = held
  if (first === undefined) return undefined
  if (held.length === 1) return first
  const names = [...new Set(held.map(nameOf))]
  const shown = names.slice(0, NAMED_IN_GROUP).join(", ")
  const rest = names.length - NAMED_IN_GROUP
  const sessions = held.flatMap((n) => (n.sessionId !== undefined ? [n.sessionId] : []))
  const projects = [...new Set(held.flatMap((n) => (n.projectId !== undefined ? [n.projectId] : [])))]
  const titles = [...new Set(held.map(bareTitle))]
  const what = titles.length === 1 ? titles[0]! : `${first.type} (${titles.length} kinds)`
  return {
    id,
    type: first.type,
    priority: first.priority,
    title: `${held.length} more: ${what}`,
    message: `${shown}${rest > 0 ? ` and ${rest} more` : ""}; orch status shows each.`,
    timestamp,
    ...(projects.length === 1 ? { projectId: projects[0]! } : {}),
    data: { grouped: held.length, sessions, notifications: held.map((n) => n.id) }
  }
}
