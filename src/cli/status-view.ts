/**
 * What `orch status` shows of a record, and how honestly. With a supervisor running, records are its current view
 * (it probes every few seconds). Without one nothing watches the sessions, so a live session's status and activity
 * are only what was last recorded: they are marked so (`recorded: true`), with how long ago (`recordedAgeMs`),
 * rather than shown as the truth; but one whose agent's process is seen gone is shown as what it is now (errored,
 * exited). Ended sessions are final either way. Pure.
 */
import { activityOf, type ActivitySignal } from "../domain/activity.ts"
import { isUnwatched } from "../domain/live.ts"
import { clockTime, describeLimit } from "../domain/rate-limit.ts"
import { asAgentGone, awaitsReview, hostOf, isEnded, isLive, type SessionRecord, workLabel } from "../domain/session.ts"
import { age, duration, table } from "./format.ts"

export interface ShownRecord extends SessionRecord {
  /** True when no supervisor watches this live session: status and activity are as last recorded, maybe stale. */
  readonly recorded: boolean
  /** Milliseconds since the shown status and activity were recorded (the record, or a newer signal of the agent). */
  readonly recordedAgeMs: number
}

/** The record's activity, or a newer one from the agent's own signals (hooks write them between record updates). */
export const withLatestActivity = (record: SessionRecord, signal: ActivitySignal | undefined): SessionRecord => {
  if (isEnded(record.status) || signal?.ts === undefined || Date.parse(signal.ts) < Date.parse(record.updatedAt) - 1000) return record
  const activity = activityOf(signal)
  return activity === undefined ? record : { ...record, activity }
}

export const asShown = (
  record: SessionRecord,
  signal: ActivitySignal | undefined,
  options: {
    readonly supervised: boolean
    readonly nowMs: number
    /** Hosts the supervisor's host watch finds not answering: what their sessions do now is unknown. */
    readonly downHosts?: ReadonlySet<string>
    /** The projects the running supervisor serves (their ids): a live session of another one is `unwatched`. */
    readonly watched?: ReadonlySet<string>
    /** Its agent's process is seen gone (store/spawner.ts `agentProcessGone`). */
    readonly agentGone?: boolean
  }
): ShownRecord => {
  if (options.agentGone === true && isLive(record)) return { ...asAgentGone(record), host: hostOf(record), recorded: false, recordedAgeMs: 0 }
  const latest = withLatestActivity(record, signal)
  const shown = !isEnded(record.status) && options.downHosts?.has(hostOf(record)) === true ? { ...latest, activity: "unknown" as const } : latest
  const recordedAt = Math.max(Date.parse(record.updatedAt), shown !== record && signal?.ts !== undefined ? Date.parse(signal.ts) : -Infinity)
  const unwatched = options.supervised && options.watched !== undefined && isUnwatched(record, options.watched)
  return {
    ...shown,
    ...(unwatched ? { status: "unwatched" as const } : {}),
    host: hostOf(record),
    // An interrupted spawn is what it is now (its process is gone), not a state last recorded; an unwatched session's
    // activity is as last recorded, as with no supervisor at all.
    recorded: (unwatched || !options.supervised) && !isEnded(record.status) && record.status !== "interrupted",
    recordedAgeMs: Number.isNaN(recordedAt) ? 0 : Math.max(0, options.nowMs - recordedAt)
  }
}

/**
 * The line under the table for sessions whose project left the config the supervisor serves: which, and what to do.
 * `configPath`: the file the supervisor serves, when it says.
 */
export const unwatchedLine = (rows: ReadonlyArray<ShownRecord>, configPath: string | undefined): string | undefined => {
  const unwatched = rows.filter((row) => row.status === "unwatched")
  if (unwatched.length === 0) return undefined
  const projects = [...new Set(unwatched.map((row) => row.projectId))]
  const config = configPath === undefined ? "the config the supervisor serves" : configPath
  return `${unwatched.map((row) => row.sessionId).join(", ")} ${unwatched.length === 1 ? "is" : "are"} unwatched: ` +
    `${projects.length === 1 ? `project ${projects[0]} is` : `projects ${projects.join(", ")} are`} not in ${config}, so nothing probes ` +
    `${unwatched.length === 1 ? "it" : "them"} or reacts for ${unwatched.length === 1 ? "it" : "them"}; add the project back to that file ` +
    `(it applies without a restart) to watch ${unwatched.length === 1 ? "it" : "them"} again, or end ${
      unwatched.length === 1 ? "it" : "them"
    } with \`orch session kill ${unwatched[0]!.sessionId}\``
}

const prCell = (record: SessionRecord) => (record.pr === null ? "-" : `#${record.pr.number} ${record.pr.state}`)

/** The table; a RECORDED column (how long ago) only when some row is as last recorded. */
export const statusTable = (rows: ReadonlyArray<ShownRecord>, nowMs: number): string => {
  const recorded = rows.some((r) => r.recorded)
  // A HOST column once a session runs on another machine than this one.
  const hosts = rows.some((r) => hostOf(r) !== "local")
  return table(
    ["SESSION", ...(hosts ? ["HOST"] : []), "ISSUE", "BRANCH", "STATUS", "ACTIVITY", "PR", "AGE", ...(recorded ? ["RECORDED"] : [])],
    rows.map((r) => [
      r.sessionId,
      ...(hosts ? [hostOf(r)] : []),
      workLabel(r),
      r.branch,
      r.status,
      r.activity,
      prCell(r),
      age(r.createdAt, nowMs),
      ...(recorded ? [r.recorded ? `${duration(r.recordedAgeMs)} ago` : "-"] : [])
    ])
  )
}

/** The line under the table that says the states are as recorded, when they are for want of a supervisor (unwatched ones have theirs). */
export const recordedNote = (rows: ReadonlyArray<ShownRecord>, silent = false): string | undefined =>
  rows.some((r) => r.recorded && r.status !== "unwatched")
    ? silent
      ? "The supervisor does not answer, so live sessions show what was last recorded (RECORDED), not what they are " +
        "doing now: `orch session ls` checks their terminals."
      : "No supervisor is running, so live sessions show what was last recorded (RECORDED), not what they are doing now: " +
        "`orch session ls` checks their terminals, `orch start <project>` keeps them current."
    : undefined

/** "PRs awaiting a review: app 3, web 1" (what `maxAwaitingReview` counts), when any PR waits on a person. */
export const awaitingReviewLine = (records: ReadonlyArray<SessionRecord>): string | undefined => {
  const counts = new Map<string, number>()
  for (const record of records) {
    if (record.role === undefined && !isEnded(record.status) && awaitsReview(record)) counts.set(record.projectId, (counts.get(record.projectId) ?? 0) + 1)
  }
  return counts.size === 0 ? undefined : `PRs awaiting a review: ${[...counts].map(([project, n]) => `${project} ${n}`).join(", ")}`
}

/**
 * "app-3 is rate-limited: API Error: … ; orch tells it to continue at 16:12", for each live session its provider
 * turned away; without a supervisor, nobody will.
 */
export const rateLimitedLines = (records: ReadonlyArray<SessionRecord>, nowMs: number, supervised: boolean): ReadonlyArray<string> =>
  records.flatMap((record) =>
    !isEnded(record.status) && record.activity === "rate_limited" && record.rateLimit !== undefined
      ? [
        `${record.sessionId} is rate-limited: ${describeLimit(record.rateLimit, clockTime(nowMs))}${
          supervised ? "" : " (once a supervisor runs: `orch start`)"
        }`
      ]
      : []
  )

/**
 * "app-3's agent ended; it printed: Error: invalid API key", for each session whose agent the supervisor found ended
 * after its start (the note is what it printed last, one line, secrets hidden).
 */
export const exitedLines = (records: ReadonlyArray<SessionRecord>): ReadonlyArray<string> =>
  records.flatMap((record) =>
    !isEnded(record.status) && record.activity === "exited" && record.exitNote !== undefined
      ? [`${record.sessionId}'s agent ended; it printed: ${record.exitNote} (\`orch session restore ${record.sessionId}\` starts it again)`]
      : []
  )
