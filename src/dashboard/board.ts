/**
 * What the board makes of a session: which group it is in (by what it needs from a person), which actions fit
 * it, which events are worth showing as its "last event". Pure, and shared by the server and the page (it
 * imports only types and Schema-free rules, so the page's bundle stays free of Schema).
 */
import type { OrchEvent } from "../domain/event.ts"
import { isLive } from "../domain/live.ts"
import type { SessionRecord, SessionStatus } from "../domain/session.ts"

export type Group = "needs" | "review" | "working" | "done"

export const GROUPS: ReadonlyArray<{ readonly key: Group; readonly title: string; readonly hint: string }> = [
  { key: "needs", title: "Needs you", hint: "waiting for input, stuck, errored, escalated, or unwatched (its project left the config)" },
  { key: "review", title: "Review and merge", hint: "awaiting review, approved, mergeable or changes requested" },
  { key: "working", title: "Working", hint: "agents at work, CI running or being fixed, agents waiting out a rate limit" },
  { key: "done", title: "Done", hint: "merged, closed, killed, ended after the agent stopped, or a spawn interrupted (orch undoes it)" }
]

const BY_STATUS: Readonly<Record<SessionStatus, Group>> = {
  needs_input: "needs",
  stuck: "needs",
  errored: "needs",
  review_pending: "review",
  approved: "review",
  mergeable: "review",
  changes_requested: "review",
  spawning: "working",
  working: "working",
  ready: "working",
  idle: "working",
  pr_open: "working",
  ci_failed: "working",
  // orch tells the agent to continue when its limit resets; escalated, it moves to "needs".
  rate_limited: "working",
  merged: "done",
  killed: "done",
  done: "done",
  exited: "done",
  // A spawn whose process died half-way: it never started, and orch undoes it (the supervisor, within a probe cycle).
  interrupted: "done",
  // Its project left the config: nothing watches it until a person adds the project back or kills it.
  unwatched: "needs"
}

/** A reaction orch gave up on: a person is needed, whatever the status says. */
export const isEscalated = (record: SessionRecord): boolean => Object.values(record.reactions ?? {}).some((reaction) => reaction.escalated === true)

export const groupOf = (record: SessionRecord): Group => {
  const group = BY_STATUS[record.status]
  return group !== "done" && isEscalated(record) ? "needs" : group
}

export const canKill = isLive
export const canRestore = (record: SessionRecord): boolean =>
  record.status !== "merged" && record.status !== "spawning" && record.status !== "interrupted" && (record.activity === "exited" || groupOf(record) === "done")
/** Merging from the dashboard: the PR is open, green, approved and free of conflicts (the supervisor checks again). */
export const canMerge = (record: SessionRecord): boolean => record.status === "mergeable" && record.pr?.state === "open"

/** Events that say something about a session's progress (not deliveries or supervisor restarts). */
export const showsOnCard = (event: OrchEvent): boolean =>
  event.sessionId !== undefined && !event.type.startsWith("notification.") && event.type !== "session.adopted"

/** Whether an event is about `sessionId`: its own, or one about a pair it is in (`data.sessions`: a predicted conflict). */
export const concerns = (event: OrchEvent, sessionId: string): boolean =>
  event.sessionId === sessionId || (Array.isArray(event.data?.sessions) && event.data.sessions.includes(sessionId))

/** Newest sessions first; the order never changes while a session lives, so cards do not jump. */
export const byNewest = (a: SessionRecord, b: SessionRecord): number =>
  b.createdAt.localeCompare(a.createdAt) || b.sessionId.localeCompare(a.sessionId, undefined, { numeric: true })

/** Counts per group, for one project or all (`project` undefined). */
export const countGroups = (records: Iterable<SessionRecord>, project?: string): Record<Group, number> => {
  const counts: Record<Group, number> = { needs: 0, review: 0, working: 0, done: 0 }
  for (const record of records) if (project === undefined || record.projectId === project) counts[groupOf(record)]++
  return counts
}

export type Tone = "bad" | "warn" | "good" | "info" | "active" | "muted"

/** The colour a status is drawn in. */
export const toneOf = (status: SessionStatus): Tone => {
  switch (status) {
    case "needs_input":
    case "stuck":
    case "errored":
      return "bad"
    case "ci_failed":
    case "changes_requested":
    case "rate_limited":
    case "exited":
    case "interrupted":
    case "unwatched":
      return "warn"
    case "approved":
    case "mergeable":
    case "merged":
      return "good"
    case "review_pending":
    case "pr_open":
      return "info"
    case "spawning":
    case "working":
      return "active"
    case "ready":
    case "idle":
    case "killed":
    case "done":
      return "muted"
  }
}
