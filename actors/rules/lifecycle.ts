/**
 * The lifecycle decision: one pure function from a session's record and one observation (a probe, an agent
 * signal, time passing, what the repohost says about the PR) to its next record and the events that change
 * produced. No effects: the session actor persists and publishes what this returns.
 */
import type { NewEvent } from "../../src/domain/event.ts"
import { learned, limitedAgain, type Told } from "../../src/domain/rate-limit.ts"
import { type Activity, isLive, type SessionRecord, type SessionStatus } from "../../src/domain/session.ts"
import type { PullRequestView } from "../../src/plugins/scm/Scm.ts"
import { type ActivityRules, foldScreen, foldWord, type Word } from "./activity-rule.ts"

export type Observation =
  /** Time passed: time rules (ready → idle, stuck) are checked. */
  | { readonly _tag: "Tick" }
  /**
   * A runtime probe. `screen` is what the agent plugin reads off the screen, when it was read and recognised;
   * `lastOutputAt` when the terminal last printed anything (ms), when the runtime can tell.
   */
  | ({
    readonly _tag: "Probe"
    readonly liveness: "alive" | "exited" | "gone" | "error"
    readonly screen?: Activity
    readonly lastOutputAt?: number
  } & Told)
  /** The agent said what it is doing (a hook event or a report); `offset`: where its line ends in the activity file. */
  | ({ readonly _tag: "Signal"; readonly offset?: number } & Word)
  /**
   * What the repohost says about the session's pull request. The failing checks (for the `ci-failed` message)
   * and what reviewers asked for (for the `changes-requested` message) may be left out.
   */
  | (
    & { readonly _tag: "PullRequest" }
    & Omit<PullRequestView, "failingChecks" | "reviewComments">
    & Partial<Pick<PullRequestView, "failingChecks" | "reviewComments">>
  )

export interface LifecycleRules extends ActivityRules {
  readonly readyThresholdMs: number
  /** No activity for this long while working makes a session stuck; undefined turns the rule off. */
  readonly stuckThresholdMs: number | undefined
  /** Probes in a row that find the runtime gone before the session counts as exited. */
  readonly deadAfterProbes: number
  /** How long after a rate-limited agent gave up orch first tells it to continue, when no reset time is known. */
  readonly rateLimitRetryMs: number
}

export interface Decision {
  readonly record: SessionRecord
  readonly events: ReadonlyArray<NewEvent>
}

const STATUS_EVENTS: Partial<Record<SessionStatus, NewEvent["type"]>> = {
  working: "session.working",
  ready: "session.ready",
  idle: "session.idle",
  stuck: "session.stuck",
  needs_input: "session.needs_input",
  rate_limited: "session.rate_limited"
}

/** Folds an observation into the fields it speaks about. */
const observe = (record: SessionRecord, observation: Observation, now: number, rules: LifecycleRules): SessionRecord => {
  switch (observation._tag) {
    case "Tick":
      return record
    case "Signal": {
      const { _tag, offset, ...word } = observation
      const folded = foldWord(record, word)
      return offset === undefined || offset <= (record.signalOffset ?? 0) ? folded : { ...folded, signalOffset: offset }
    }
    case "Probe": {
      if (observation.liveness === "error") return record
      if (observation.liveness === "alive") {
        const alive = record.deadProbes ? { ...record, deadProbes: 0 } : record
        const revived = alive.activity === "exited" ? { ...alive, activity: "unknown" as const } : alive
        return foldScreen(revived, observation, now, rules)
      }
      const deadProbes = (record.deadProbes ?? 0) + 1
      return deadProbes >= rules.deadAfterProbes && record.activity !== "exited"
        ? { ...record, deadProbes, activity: "exited", activitySince: new Date(now).toISOString() }
        : { ...record, deadProbes }
    }
    case "PullRequest":
      return {
        ...record,
        pr: observation.pr,
        checks: observation.checks,
        review: observation.review,
        mergeable: observation.mergeable,
        ...(observation.failingChecks !== undefined && observation.failingChecks.length > 0 ? { failingChecks: observation.failingChecks } : {}),
        ...(observation.checks !== "failing" ? { failingChecks: [] } : {}),
        reviewComments: observation.review === "changes_requested" ? observation.reviewComments ?? [] : []
      }
  }
}

/** Activities that say the agent got past its limit: its turn ended, or it waits on something else. */
const PAST_LIMIT: ReadonlyArray<Activity> = ["ready", "idle", "waiting_input", "blocked", "exited"]

/** What an observation says of the limit: only a signal, or a probe whose screen was read, says anything. */
const toldBy = (observation: Observation): Told => {
  if (observation._tag !== "Signal" && observation._tag !== "Probe") return {}
  const { limit, resetAt, kind, retrying } = observation
  return {
    ...(limit !== undefined ? { limit } : {}),
    ...(resetAt !== undefined ? { resetAt } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(retrying !== undefined ? { retrying } : {})
  }
}

/**
 * The record's rate limit: started (or counted again) when the agent is found limited, kept while it works on
 * after orch told it to continue (it may be turned away again), dropped once it is past the limit. An agent that
 * gave up, was told to continue and is seen retrying again was turned away again, even if no probe saw it work between.
 */
const trackRateLimit = (before: SessionRecord, observed: SessionRecord, observation: Observation, now: number, rules: LifecycleRules): SessionRecord => {
  if (observed.activity !== "rate_limited") {
    if (observed.rateLimit === undefined || !PAST_LIMIT.includes(observed.activity)) return observed
    const { rateLimit: _, ...rest } = observed
    return rest
  }
  const told = toldBy(observation)
  const limit = observed.rateLimit
  const continuedSince = limit?.continuedAt !== undefined && limit.gaveUpAt !== undefined && limit.continuedAt >= limit.gaveUpAt
  if (before.activity !== "rate_limited" || limit === undefined || (continuedSince && told.retrying === true)) {
    return { ...observed, rateLimit: limitedAgain(limit, now, told, rules.rateLimitRetryMs) }
  }
  const rateLimit = learned(limit, told, now, rules.rateLimitRetryMs)
  return rateLimit === limit ? observed : { ...observed, rateLimit }
}

/** ready → idle after `readyThresholdMs`. */
const applyTime = (record: SessionRecord, now: number, rules: LifecycleRules): SessionRecord => {
  const since = record.activitySince === undefined ? undefined : Date.parse(record.activitySince)
  if (record.activity === "ready" && since !== undefined && now - since >= rules.readyThresholdMs) {
    return { ...record, activity: "idle", activitySince: new Date(now).toISOString() }
  }
  return record
}

const isStuck = (record: SessionRecord, now: number, rules: LifecycleRules) => {
  if (rules.stuckThresholdMs === undefined || record.activitySince === undefined) return false
  return (record.activity === "active" || record.activity === "unknown") && now - Date.parse(record.activitySince) >= rules.stuckThresholdMs
}

/** The status a record's fields add up to, most urgent first. */
export const deriveStatus = (record: SessionRecord, stuck: boolean): SessionStatus => {
  if (record.pr?.state === "merged") return "merged"
  if (record.pr?.state === "closed") return "done"
  if (record.activity === "exited") return "errored"
  if (record.activity === "waiting_input" || record.activity === "blocked") return "needs_input"
  if (record.activity === "rate_limited") return "rate_limited"
  if (stuck) return "stuck"
  if (record.pr !== null) {
    if (record.checks === "failing") return "ci_failed"
    if (record.review === "changes_requested") return "changes_requested"
    if (record.review === "approved") return record.checks === "passing" && record.mergeable !== false && record.pr.state === "open" ? "mergeable" : "approved"
    if (record.checks === "passing") return "review_pending"
    if (record.activity === "active") return "working"
    return "pr_open"
  }
  switch (record.activity) {
    case "ready":
      return "ready"
    case "idle":
      return "idle"
    default:
      return "working"
  }
}

/** Events for what changed about the pull request between two records. */
const prEvents = (before: SessionRecord, after: SessionRecord): Array<NewEvent> => {
  const pr = after.pr
  if (pr === null) return []
  const base = { sessionId: after.sessionId, projectId: after.projectId, prNumber: pr.number }
  const events: Array<NewEvent> = []
  if (before.pr === null || before.pr.number !== pr.number) events.push({ type: "pr.created", ...base, message: pr.url, data: { url: pr.url } })
  if (after.checks === "failing" && before.checks !== "failing") events.push({ type: "ci.failed", ...base })
  if (after.checks === "passing" && before.checks !== "passing") events.push({ type: "ci.passed", ...base })
  if (after.review === "changes_requested" && before.review !== "changes_requested") events.push({ type: "review.changes_requested", ...base })
  if (after.review === "approved" && before.review !== "approved") events.push({ type: "review.approved", ...base })
  if (after.mergeable === false && before.mergeable !== false) events.push({ type: "merge.conflicts", ...base })
  if (pr.state === "merged" && before.pr?.state !== "merged") events.push({ type: "pr.merged", ...base })
  if (pr.state === "closed" && before.pr?.state !== "closed") events.push({ type: "pr.closed", ...base })
  return events
}

export const decide = (record: SessionRecord, observation: Observation, now: number, rules: LifecycleRules): Decision => {
  if (!isLive(record)) return { record, events: [] }
  const observed = applyTime(trackRateLimit(record, observe(record, observation, now, rules), observation, now, rules), now, rules)
  const status = deriveStatus(observed, isStuck(observed, now, rules))
  const next = { ...observed, status }
  const events = prEvents(record, next)
  if (next.activity === "exited" && record.activity !== "exited") {
    events.push({ type: "session.exited", sessionId: next.sessionId, projectId: next.projectId, message: "the agent process ended" })
  }
  if (observation._tag === "Signal" && observation.report === "done" && next.activity !== "exited") {
    const note = observation.note
    events.push({
      type: "session.reported_done",
      sessionId: next.sessionId,
      projectId: next.projectId,
      message: note ?? "the agent reported its task done",
      ...(note !== undefined ? { data: { note } } : {})
    })
  }
  const statusEvent = STATUS_EVENTS[status]
  if (status !== record.status && statusEvent !== undefined) {
    const limit = status === "rate_limited" ? next.rateLimit : undefined
    events.push({
      type: statusEvent,
      sessionId: next.sessionId,
      projectId: next.projectId,
      ...(limit?.message !== undefined ? { message: limit.message } : {}),
      data: {
        from: record.status,
        activity: next.activity,
        ...(limit !== undefined
          ? {
            attempts: limit.attempts,
            ...(limit.kind !== undefined ? { kind: limit.kind } : {}),
            ...(limit.retrying === true ? { retrying: true } : { continueAt: limit.continueAt }),
            ...(limit.resetAt !== undefined ? { resetAt: limit.resetAt } : {})
          }
          : {})
      }
    })
  }
  const changed = events.length > 0 || JSON.stringify(next) !== JSON.stringify(record)
  return { record: changed ? next : record, events }
}
