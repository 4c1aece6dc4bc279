/**
 * Running what the reaction policy decided: a message typed to the agent, a notification, a merge, an
 * escalation. Every outcome is an event; a send that cannot happen (no message, agent gone, not taken) is
 * reported as a failure and a notification, never dropped.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { ProjectConfig, ReactionKey } from "../src/config/schema.ts"
import { newNotification } from "../src/domain/notification.ts"
import type { EventPriority } from "../src/domain/priority.ts"
import { clockTime, describeLimit } from "../src/domain/rate-limit.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { RuntimeShape } from "../src/plugins/runtime/Runtime.ts"
import { type MergeMethod, mergeMethodOf, type ScmShape } from "../src/plugins/scm/Scm.ts"
import type { EventLogShape } from "../src/store/EventLog.ts"
import type { NotifierRouterShape } from "./notifier-router.ts"
import type { ReactionEffect } from "./rules/reactions.ts"

const TITLES: Readonly<Record<ReactionKey, string>> = {
  "ci-failed": "CI failed",
  "changes-requested": "changes requested",
  "merge-conflicts": "merge conflicts",
  "approved-and-green": "approved and green",
  "agent-stuck": "agent stuck",
  "agent-needs-input": "agent needs input",
  "agent-exited": "agent exited",
  "agent-rate-limited": "agent rate-limited",
  "all-complete": "all sessions complete",
  "predicted-conflict": "predicted conflict"
}

/** One paragraph about a session, for notifications with `includeSummary`. */
export const sessionSummary = (record: SessionRecord): string =>
  [
    record.task !== undefined
      ? `${record.sessionId} (task: ${record.task.title})`
      : `${record.sessionId} (issue ${record.issueId}${record.issue ? `: ${record.issue.title}` : ""})`,
    `status ${record.status}, activity ${record.activity}, branch ${record.branch}`,
    record.pr ? `PR #${record.pr.number} ${record.pr.state}: ${record.pr.url}` : "no PR yet"
  ].join("; ")

/** The message a send-to-agent reaction types: its own text, then what the agent needs to act on it. */
export const agentMessage = (reaction: ReactionKey, message: string, record: SessionRecord): string => {
  const failing = record.failingChecks ?? []
  const comments = record.reviewComments ?? []
  if (reaction === "ci-failed" && failing.length > 0) {
    return [
      message,
      "",
      "Failing checks:",
      ...failing.flatMap((check) => [
        `- ${check.name}${check.summary ? `: ${check.summary}` : ""}${check.url ? ` (${check.url})` : ""}`,
        ...(check.log ? check.log.split("\n").map((line) => `    ${line}`) : [])
      ])
    ].join("\n")
  }
  if (reaction === "changes-requested" && comments.length > 0) {
    return [
      message,
      "",
      "Review comments:",
      ...comments.map((c) =>
        `- ${c.author}${c.bot ? " (bot)" : ""}${c.path ? ` on ${c.path}${c.line !== undefined ? `:${c.line}` : ""}` : ""}: ${c.body.replace(/\s*\n\s*/g, " ")}`
      )
    ].join("\n")
  }
  return message
}

export interface EffectContext {
  readonly project: ProjectConfig
  readonly record: SessionRecord
  readonly runtime: RuntimeShape
  /** Where the PR lives, when the project has one that orch can use. */
  readonly scm?: ScmShape
  readonly events: EventLogShape
  readonly router: NotifierRouterShape
}

/**
 * Merges only when the PR, looked at again right now, is green, approved, not a draft and free of conflicts;
 * otherwise (or when the merge fails) says why.
 */
export const checkThenMerge = Effect.fnUntraced(function*(scm: ScmShape, record: SessionRecord, method: MergeMethod) {
  const view = yield* Effect.result(scm.observe(record.branch))
  if (view._tag === "Failure") return `its pull request could not be read: ${view.failure.message}`
  if (view.success.pr === null) return "it has no pull request"
  const { pr, checks, review, mergeable } = view.success
  const blockers = [
    pr.state !== "open" ? `it is ${pr.state}` : undefined,
    checks !== "passing" ? `its checks are ${checks ?? "missing"}` : undefined,
    review !== "approved" ? "it is not approved" : undefined,
    mergeable === false ? "it has conflicts" : undefined
  ].filter((reason): reason is string => reason !== undefined)
  if (blockers.length > 0) return blockers.join(", ")
  return yield* scm.merge(pr.number, method).pipe(Effect.as(undefined), Effect.catch((error) => Effect.succeed(error.message)))
})

export const runReactionEffect = Effect.fnUntraced(function*(ctx: EffectContext, effect: ReactionEffect) {
  const { record, events, router } = ctx
  const base = { sessionId: record.sessionId, projectId: record.projectId, ...(record.pr ? { prNumber: record.pr.number } : {}) }
  const notify = (priority: EventPriority, title: string, message: string, type: string) =>
    Effect.flatMap(
      newNotification({
        type,
        priority,
        title: `${record.sessionId}: ${title}`,
        message,
        sessionId: record.sessionId,
        projectId: record.projectId,
        ...(record.pr ? { prUrl: record.pr.url } : {})
      }),
      router.notify
    )
  const triggered = (action: string, data: Record<string, unknown> = {}) =>
    events.append({ type: "reaction.triggered", ...base, reaction: effect.reaction, action, data })

  switch (effect._tag) {
    case "SendToAgent": {
      const failure = effect.message === undefined || effect.message.trim() === ""
        ? "the reaction has no message to send"
        : record.runtime === null
        ? "the session has no terminal"
        : yield* ctx.runtime.send(record.runtime, agentMessage(effect.reaction, effect.message, record)).pipe(
          Effect.as(undefined),
          Effect.catch((error) => Effect.succeed(error.message))
        )
      yield* triggered("send-to-agent", { attempt: effect.attempt, ...effect.data, ...(failure ? { failed: failure } : {}) })
      if (failure !== undefined) {
        yield* notify("urgent", `could not send the ${effect.reaction} message`, failure, "reaction.failed")
      }
      return
    }
    case "Notify": {
      yield* triggered("notify", { auto: effect.auto, priority: effect.priority, ...effect.data })
      if (!effect.auto) return
      // A limit's own words and when orch continues come first: a list of notifications shows one line.
      const message = [
        ...(effect.reaction === "agent-rate-limited" && record.rateLimit !== undefined
          ? [describeLimit(record.rateLimit, clockTime(yield* Clock.currentTimeMillis))]
          : []),
        // What a dead agent printed last says why, more often than not.
        ...(effect.reaction === "agent-exited" && record.exitNote !== undefined ? [`it printed: ${record.exitNote}`] : []),
        effect.message ?? TITLES[effect.reaction],
        ...(effect.includeSummary ? [sessionSummary(record)] : [])
      ].join("\n")
      return yield* notify(effect.priority, TITLES[effect.reaction], message, `reaction.${effect.reaction}`)
    }
    case "AutoMerge": {
      // A project with a merge train merges only through it: the PR joins the train at its next round.
      if (ctx.project.mergeTrain) return yield* triggered("auto-merge", { mergeTrain: true })
      const failure = ctx.scm === undefined || record.pr === null
        ? "no repohost plugin that can merge is configured for this project"
        : yield* checkThenMerge(ctx.scm, record, mergeMethodOf(ctx.project.scm))
      yield* triggered("auto-merge", failure === undefined ? { merged: true } : { failed: failure })
      if (failure !== undefined) {
        yield* notify("action", "ready to merge, but not merged", `orch did not merge the PR: ${failure}. Merge it yourself.`, "reaction.approved-and-green")
      }
      return
    }
    case "Escalate": {
      yield* events.append({ type: "reaction.escalated", ...base, reaction: effect.reaction, message: effect.reason })
      return yield* notify(
        "urgent",
        `${TITLES[effect.reaction]}: escalated`,
        `orch stopped reacting on its own (${effect.reason}); a person is needed.`,
        "reaction.escalated"
      )
    }
  }
})
