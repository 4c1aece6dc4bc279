/**
 * The reaction policy: which reactions a lifecycle change triggers, and what each one does now. Pure: it takes
 * the record before and after a decision and returns the record with its reaction state updated (attempts and
 * first-trigger time, persisted so a restart does not reset them) and the effects to run.
 *
 * A reaction's condition is on, off, or unknown. Each time it turns on counts one attempt; it resets when the
 * condition turns off (the problem is solved). `escalateAfter` (attempts, or a duration since the first
 * trigger) and `retries` (for send-to-agent) escalate: no more action, an urgent notification instead.
 *
 * A condition may also be held: neither a new occurrence nor its end. Turning on again after being held, with its
 * attempt still recorded, is the same occurrence: no new attempt, nothing done again.
 */
import { DEFAULT_REACTIONS } from "../../src/config/defaults.ts"
import type { EventPriority, ReactionConfig, ReactionKey } from "../../src/config/schema.ts"
import { parseDuration } from "../../src/domain/duration.ts"
import { dueToContinue } from "../../src/domain/rate-limit.ts"
import type { SessionRecord } from "../../src/domain/session.ts"

export type ReactionEffect =
  | {
    readonly _tag: "SendToAgent"
    readonly reaction: ReactionKey
    readonly message: string | undefined
    readonly attempt: number
    /** More for its `reaction.triggered` event (a predicted conflict's key). */
    readonly data?: Readonly<Record<string, unknown>>
  }
  | {
    readonly _tag: "Notify"
    readonly reaction: ReactionKey
    readonly priority: EventPriority
    readonly message: string | undefined
    readonly includeSummary: boolean
    /** false: the reaction is off; it is recorded (and shown in the dashboard) but nobody is notified. */
    readonly auto: boolean
    readonly data?: Readonly<Record<string, unknown>>
  }
  | { readonly _tag: "AutoMerge"; readonly reaction: ReactionKey }
  | { readonly _tag: "Escalate"; readonly reaction: ReactionKey; readonly reason: string }

type Condition = "on" | "off" | "unknown" | "held"

/** What a project changes in the conditions. */
export interface ReactionScope {
  /** The project merges through its merge train (`mergeTrain: true`). */
  readonly mergeTrain?: boolean
}

/** The session-level reactions and when their condition holds. (`all-complete` is the supervisor's.) */
export const CONDITIONS: Readonly<Partial<Record<ReactionKey, (record: SessionRecord) => Condition>>> = {
  "ci-failed": (r) => (r.checks === "failing" ? "on" : r.checks === "passing" ? "off" : "unknown"),
  "changes-requested": (r) => (r.review === "changes_requested" ? "on" : r.review === "approved" ? "off" : "unknown"),
  "merge-conflicts": (r) => (r.mergeable === false ? "on" : r.mergeable === true ? "off" : "unknown"),
  "approved-and-green": (r) => (r.status === "mergeable" ? "on" : "off"),
  "agent-stuck": (r) => (r.status === "stuck" ? "on" : "off"),
  "agent-needs-input": (r) => (r.status === "needs_input" ? "on" : "off"),
  "agent-exited": (r) => (r.activity === "exited" ? "on" : "off"),
  // One episode from the first refusal until a turn ends normally: being turned away again after orch told the agent
  // to continue is the same limit (one notification), not a new attempt.
  "agent-rate-limited": (r) => (r.rateLimit !== undefined ? "on" : "off")
}

/**
 * `approved-and-green` in a train project: once per readiness of the PR. The train's update-branch makes its
 * checks run again on the new head (and a conflict waits for its agent's rebase): still approved and not failing,
 * it is the same readiness, held until it is green again. Red checks, a lost approval or an end is its end: green
 * again after that is a new readiness.
 */
export const trainReadiness = (r: SessionRecord): Condition =>
  r.status === "mergeable"
    ? "on"
    : r.pr !== null && r.pr.state === "open" && r.review === "approved" && r.checks !== "failing" && r.role !== "orchestrator"
    ? "held"
    : "off"

const conditionOf = (key: ReactionKey, scope: ReactionScope): ((record: SessionRecord) => Condition) | undefined =>
  key === "approved-and-green" && scope.mergeTrain === true ? trainReadiness : CONDITIONS[key]

export interface ReactionPlan {
  readonly record: SessionRecord
  readonly effects: ReadonlyArray<ReactionEffect>
}

const act = (key: ReactionKey, reaction: ReactionConfig, attempt: number): ReactionEffect => {
  switch (reaction.action) {
    case "send-to-agent":
      return { _tag: "SendToAgent", reaction: key, message: reaction.message, attempt }
    case "auto-merge":
      return { _tag: "AutoMerge", reaction: key }
    case "notify":
      return {
        _tag: "Notify",
        reaction: key,
        priority: reaction.priority ?? "info",
        message: reaction.message,
        includeSummary: reaction.includeSummary === true,
        auto: reaction.auto
      }
  }
}

export const planReactions = (
  before: SessionRecord,
  after: SessionRecord,
  reactions: Readonly<Record<ReactionKey, ReactionConfig>>,
  now: number,
  scope: ReactionScope = {}
): ReactionPlan => {
  const state = { ...after.reactions }
  const effects: Array<ReactionEffect> = []
  for (const key of Object.keys(CONDITIONS) as Array<ReactionKey>) {
    const condition = conditionOf(key, scope)!
    const reaction = reactions[key]
    const was = condition(before)
    const is = condition(after)
    const entry = state[key]
    if (is === "off") {
      delete state[key]
      continue
    }
    if (is !== "on") continue
    const sameOccurrence = was === "held" && entry !== undefined
    if (was !== "on" && !sameOccurrence) {
      const attempts = (entry?.attempts ?? 0) + 1
      const next = { attempts, firstTriggeredAt: entry?.firstTriggeredAt ?? new Date(now).toISOString(), ...(entry?.escalated ? { escalated: true } : {}) }
      state[key] = next
      if (reaction === undefined) continue
      const overAttempts = typeof reaction.escalateAfter === "number" && attempts > reaction.escalateAfter
      const overRetries = reaction.action === "send-to-agent" && reaction.retries !== undefined && attempts > reaction.retries + 1
      if (overAttempts || overRetries) {
        if (!next.escalated) {
          state[key] = { ...next, escalated: true }
          effects.push({ _tag: "Escalate", reaction: key, reason: `${attempts} attempts` })
        }
        continue
      }
      if (reaction.auto || reaction.action === "notify") effects.push(act(key, reaction, attempts))
      continue
    }
    // Still on: a duration `escalateAfter` escalates once the condition has lasted that long.
    const limit = typeof reaction?.escalateAfter === "string" ? parseDuration(reaction.escalateAfter) : undefined
    if (entry !== undefined && !entry.escalated && limit !== undefined && now - Date.parse(entry.firstTriggeredAt) >= limit) {
      state[key] = { ...entry, escalated: true }
      effects.push({ _tag: "Escalate", reaction: key, reason: `unresolved after ${reaction!.escalateAfter}` })
    }
  }
  const changed = JSON.stringify(state) !== JSON.stringify(after.reactions ?? {})
  const { reactions: _old, ...rest } = after
  return continueIfDue({ record: changed ? (Object.keys(state).length > 0 ? { ...rest, reactions: state } : rest) : after, effects }, reactions, now)
}

/** A rate-limited agent is told to continue once its limit has reset (or its backoff passed), once per time it was turned away. */
const continueIfDue = (plan: ReactionPlan, reactions: Readonly<Record<ReactionKey, ReactionConfig>>, now: number): ReactionPlan => {
  const { record } = plan
  const reaction = reactions["agent-rate-limited"]
  const limit = record.rateLimit
  if (record.activity !== "rate_limited" || limit === undefined || !reaction.auto || !dueToContinue(limit, now)) return plan
  // A reaction written whole under `reactions` may leave the message out: the default one is said then.
  const message = reaction.continueMessage ?? DEFAULT_REACTIONS["agent-rate-limited"].continueMessage
  return {
    record: { ...record, rateLimit: { ...limit, continuedAt: new Date(now).toISOString() } },
    effects: [...plan.effects, { _tag: "SendToAgent", reaction: "agent-rate-limited", message, attempt: limit.attempts }]
  }
}
