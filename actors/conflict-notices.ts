/**
 * Telling a change of the predicted conflicts: `session.conflict_predicted` / `session.conflict_cleared` events, and
 * for a predicted textual conflict the `predicted-conflict` reaction (the session whose PR would merge later is told
 * what it collides with, whom, and the files; or, with `action: notify`, a notification). Each is written only when
 * the event log after `pending.logOffset` does not have it yet (by its key), so telling a change again after a crash
 * tells nobody twice.
 */
import * as Effect from "effect/Effect"
import { DEFAULT_BRANCH_CONFLICT_MESSAGE, PREDICTED_CONFLICT_MESSAGE } from "../src/config/defaults.ts"
import { projectReactions } from "../src/config/normalize.ts"
import type { OrchestratorConfig } from "../src/config/schema.ts"
import { announcementOf, sideName } from "../src/domain/conflict-sides.ts"
import { type ConflictPrediction, type ConflictSide } from "../src/domain/conflict.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { ProjectSlots } from "../src/plugins/ProjectPlugins.ts"
import type { PendingConflictEvents } from "../src/store/conflicts-file.ts"
import type { EventLogShape } from "../src/store/EventLog.ts"
import type { NotifierRouterShape } from "./notifier-router.ts"
import { runReactionEffect } from "./reaction-effects.ts"
import { laterToMerge } from "./rules/conflict-pairs.ts"
import type { ReactionEffect } from "./rules/reactions.ts"

const short = (sha: string) => sha.slice(0, 7)

/** One side as people read it: `app-2 (branch feat/x, PR #4)`, or `the default branch main (at 1a2b3c4)`. */
export const describeSide = (side: ConflictSide, record: SessionRecord | undefined): string =>
  side.sessionId === undefined
    ? `the default branch ${side.branch} (at ${short(side.head)})`
    : `${side.sessionId} (branch ${side.branch}${record?.pr ? `, PR #${record.pr.number}` : ""})`

/** `app-1 and app-2 would conflict in a.ts, b.ts` / `… both change a.ts (they merge cleanly)`. */
export const predictionLine = (p: ConflictPrediction): string =>
  p.kind === "conflict"
    ? `${sideName(p.a)} and ${sideName(p.b)} would conflict in ${p.files.join(", ")}`
    : `${sideName(p.a)} and ${sideName(p.b)} both change ${p.files.join(", ")} (they merge cleanly)`

/** The message for the session told: the reaction's text, then what it collides with, whom, and the files. */
export const conflictMessage = (text: string, other: ConflictSide, otherRecord: SessionRecord | undefined, files: ReadonlyArray<string>): string =>
  [
    text,
    "",
    `Collides with: ${describeSide(other, otherRecord)}`,
    "Files that would conflict:",
    ...files.map((file) => `- ${file}`)
  ].join("\n")

const keyOf = (line: string): string | undefined => {
  try {
    const event = JSON.parse(line) as { type?: unknown; data?: { key?: unknown } }
    return typeof event.type === "string" && typeof event.data?.key === "string" ? `${event.type} ${event.data.key}` : undefined
  } catch {
    return undefined
  }
}

const sessionsOf = (p: ConflictPrediction) => [p.a.sessionId, p.b.sessionId].filter((id): id is string => id !== undefined)

const eventData = (p: ConflictPrediction, key: string) => ({
  key,
  kind: p.kind,
  sessions: sessionsOf(p),
  ...(p.b.sessionId === undefined ? { defaultBranch: p.b.branch } : {}),
  files: p.files,
  heads: { [sideName(p.a)]: p.a.head, [sideName(p.b)]: p.b.head }
})

export interface TellContext {
  readonly config: OrchestratorConfig
  readonly events: EventLogShape
  readonly router: NotifierRouterShape
  readonly slotsOf: (projectId: string) => ProjectSlots | undefined
  readonly recordOf: (sessionId: string) => SessionRecord | undefined
}

/** The `predicted-conflict` reaction for one predicted conflict, on the session whose PR would merge later. */
const react = Effect.fnUntraced(function*(ctx: TellContext, p: ConflictPrediction, key: string) {
  const slots = ctx.slotsOf(p.projectId)
  const a = p.a.sessionId !== undefined ? ctx.recordOf(p.a.sessionId) : undefined
  const b = p.b.sessionId !== undefined ? ctx.recordOf(p.b.sessionId) : undefined
  if (slots === undefined || a === undefined || (p.b.sessionId !== undefined && b === undefined)) return
  const facts = (r: SessionRecord) => ({ sessionId: r.sessionId, createdAt: r.createdAt, ...(r.pr ? { prNumber: r.pr.number } : {}) })
  const told = laterToMerge(facts(a), b === undefined ? undefined : facts(b))
  const [record, other, otherRecord] = told === a.sessionId ? [a, p.b, b] : [b!, p.a, a]
  const reaction = projectReactions(ctx.config, slots.project)["predicted-conflict"]
  if (other.sessionId === undefined && record.mergeable === false) {
    // The repohost already says its PR conflicts with the default branch: merge-conflicts has told the agent that.
    return
  }
  const text = other.sessionId === undefined && (reaction.message === undefined || reaction.message === PREDICTED_CONFLICT_MESSAGE)
    ? DEFAULT_BRANCH_CONFLICT_MESSAGE
    : reaction.message ?? PREDICTED_CONFLICT_MESSAGE
  const message = conflictMessage(text, other, otherRecord, p.files)
  const data = { key, with: sideName(other), files: p.files }
  const effect: ReactionEffect = reaction.action === "send-to-agent"
    ? { _tag: "SendToAgent", reaction: "predicted-conflict", message, attempt: 1, data }
    : { _tag: "Notify", reaction: "predicted-conflict", priority: reaction.priority ?? "warning", message, includeSummary: false, auto: reaction.auto, data }
  if (effect._tag === "SendToAgent" && !reaction.auto) return
  yield* runReactionEffect({
    project: slots.project,
    record,
    runtime: slots.runtime,
    events: ctx.events,
    router: ctx.router,
    ...(slots.scm ? { scm: slots.scm } : {})
  }, effect)
})

/** The events (and reactions) of `pending` that the log does not have yet after its offset. */
export const tellChanges = Effect.fnUntraced(function*(ctx: TellContext, pending: PendingConflictEvents) {
  const written = new Set((yield* ctx.events.linesFrom(pending.logOffset)).map(keyOf).filter((key) => key !== undefined))
  for (const p of pending.predicted) {
    const key = announcementOf(p)
    if (!written.has(`session.conflict_predicted ${key}`)) {
      yield* ctx.events.append({
        type: "session.conflict_predicted",
        sessionId: p.a.sessionId ?? "",
        projectId: p.projectId,
        message: predictionLine(p),
        data: eventData(p, key)
      })
    }
    if (p.kind === "conflict" && !written.has(`reaction.triggered ${key}`)) yield* react(ctx, p, key)
  }
  for (const { prediction: p, reason } of pending.cleared) {
    const key = announcementOf(p)
    if (written.has(`session.conflict_cleared ${key}`)) continue
    yield* ctx.events.append({
      type: "session.conflict_cleared",
      sessionId: p.a.sessionId ?? "",
      projectId: p.projectId,
      message: reason === "ended"
        ? `${sideName(p.a)} and ${sideName(p.b)}: no longer predicted (a session ended)`
        : `${sideName(p.a)} and ${sideName(p.b)} no longer ${p.kind === "conflict" ? "conflict" : "overlap"}`,
      data: { ...eventData(p, key), reason }
    })
  }
})
