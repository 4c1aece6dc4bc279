/**
 * What a session's actor does with one observation: folds it into the record with the lifecycle decision
 * (rules/lifecycle.ts), lets the reaction policy (rules/reactions.ts) decide what to do, then persists, logs and
 * acts. It reads the record fresh for every observation, so what the commands between them wrote (send, kill,
 * restore) is never overwritten with a stale copy.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { projectReactions } from "../src/config/normalize.ts"
import type { ProjectConfig } from "../src/config/schema.ts"
import type { OrchestratorConfig } from "../src/config/schema.ts"
import { parseDuration } from "../src/domain/duration.ts"
import { FIRST_RETRY_MS } from "../src/domain/rate-limit.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { RuntimeShape } from "../src/plugins/runtime/Runtime.ts"
import type { ScmShape } from "../src/plugins/scm/Scm.ts"
import { readExitNote } from "../src/sessions/agent-start.ts"
import type { EventLogShape } from "../src/store/EventLog.ts"
import type { SessionStoreShape } from "../src/store/SessionStore.ts"
import type { NotifierRouterShape } from "./notifier-router.ts"
import { runReactionEffect } from "./reaction-effects.ts"
import { HOOK_SILENCE_MS } from "./rules/activity-rule.ts"
import { decide, type Decision, type LifecycleRules, type Observation } from "./rules/lifecycle.ts"
import { planReactions } from "./rules/reactions.ts"

export const DEAD_AFTER_PROBES = 3

export const lifecycleRules = (config: OrchestratorConfig, project: ProjectConfig): LifecycleRules => {
  const reactions = projectReactions(config, project)
  const stuck = reactions["agent-stuck"]
  const limited = reactions["agent-rate-limited"]
  return {
    quietMs: project.agentConfig.quietMs,
    hookSilenceMs: HOOK_SILENCE_MS,
    readyThresholdMs: config.readyThresholdMs,
    stuckThresholdMs: stuck.threshold !== undefined ? parseDuration(stuck.threshold) : undefined,
    deadAfterProbes: DEAD_AFTER_PROBES,
    rateLimitRetryMs: (limited.threshold !== undefined ? parseDuration(limited.threshold) : undefined) ?? FIRST_RETRY_MS
  }
}

export interface ActorContext {
  readonly config: OrchestratorConfig
  readonly project: ProjectConfig
  readonly runtime: RuntimeShape
  readonly scm?: ScmShape
  readonly store: SessionStoreShape
  readonly events: EventLogShape
  readonly router: NotifierRouterShape
}

/**
 * The record with what its agent last printed, read once when it is first found ended (its screen outlives it), or
 * without the note once it runs again; the session.exited event quotes it.
 */
const withExitNote = Effect.fnUntraced(function*(ctx: ActorContext, before: SessionRecord, decided: Decision) {
  const after = decided.record
  if (after.activity !== "exited") {
    if (after.exitNote === undefined) return decided
    const { exitNote: _, ...running } = after
    return { ...decided, record: running }
  }
  if (before.activity === "exited" || after.runtime === null) return decided
  const note = yield* readExitNote(ctx.runtime, after.runtime, Object.values(ctx.project.agentConfig.env ?? {}))
  if (note === undefined) return decided
  return {
    record: { ...after, exitNote: note },
    events: decided.events.map((event) => (event.type === "session.exited" ? { ...event, message: `${event.message}; it printed: ${note}` } : event))
  }
})

export const handleObservation = Effect.fnUntraced(function*(ctx: ActorContext, sessionId: string, observation: Observation) {
  const record = yield* ctx.store.read(sessionId)
  const now = yield* Clock.currentTimeMillis
  const decision = yield* withExitNote(ctx, record, decide(record, observation, now, lifecycleRules(ctx.config, ctx.project)))
  const plan = planReactions(record, decision.record, projectReactions(ctx.config, ctx.project), now, {
    mergeTrain: ctx.project.mergeTrain
  })
  const next = plan.record === record ? record : { ...plan.record, updatedAt: new Date(now).toISOString() }
  if (next !== record) yield* ctx.store.write(next)
  for (const event of decision.events) yield* ctx.events.append(event)
  for (const effect of plan.effects) {
    yield* runReactionEffect({
      project: ctx.project,
      record: next,
      runtime: ctx.runtime,
      events: ctx.events,
      router: ctx.router,
      ...(ctx.scm ? { scm: ctx.scm } : {})
    }, effect)
  }
  return next
})
