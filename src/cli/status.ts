/** `orch status [--json]`: every session, from the records alone (no tmux, git or network call). */
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Command, Flag } from "effect/cli"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { activityOf, type ActivitySignal } from "../domain/activity.ts"
import { isEnded, workLabel, type SessionRecord } from "../domain/session.ts"
import { age, table } from "./format.ts"

/** The record's activity, or a newer one from the agent's own signals (hooks write them between record updates). */
export const withLatestActivity = (record: SessionRecord, signal: ActivitySignal | undefined): SessionRecord => {
  if (isEnded(record.status) || signal?.ts === undefined || Date.parse(signal.ts) < Date.parse(record.updatedAt) - 1000) return record
  const activity = activityOf(signal)
  return activity === undefined ? record : { ...record, activity }
}

interface SeenBudget {
  readonly limit: number
  readonly remaining: number
  readonly reset: number
  readonly resource?: string
  readonly blockedUntil?: number
}

const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`

/** One project's part of the budget line: what is left of the tightest resource, and a pause the host asked for. */
export const budgetPart = (project: string, budget: SeenBudget, nowMs: number): string => {
  const unit = budget.resource === "graphql" ? "GraphQL points" : "requests"
  const left = budget.limit > 0 ? `${budget.remaining}/${budget.limit} ${unit} left, resets ${hhmm(budget.reset * 1000)}` : "no budget seen yet"
  return budget.blockedUntil !== undefined && budget.blockedUntil > nowMs
    ? `${project} ${left}; paused until ${hhmm(budget.blockedUntil)} (the host asked)`
    : `${project} ${left}`
}

/** "repohost budget: …" from what the supervisor last saw, when one is running. */
const repohostBudget = (root: string, nowMs: number): string | undefined => {
  try {
    const file = JSON.parse(readFileSync(join(root, "repohost.json"), "utf8")) as { budgets: Record<string, SeenBudget> }
    const parts = Object.entries(file.budgets).map(([project, budget]) => budgetPart(project, budget, nowMs))
    return parts.length > 0 ? `repohost budget: ${parts.join("; ")}` : undefined
  } catch {
    return undefined
  }
}

const prCell = (record: SessionRecord) => (record.pr === null ? "-" : `#${record.pr.number} ${record.pr.state}`)

export const statusTable = (records: ReadonlyArray<SessionRecord>, nowMs: number) =>
  table(
    ["SESSION", "ISSUE", "BRANCH", "STATUS", "ACTIVITY", "PR", "AGE"],
    records.map((r) => [r.sessionId, workLabel(r), r.branch, r.status, r.activity, prCell(r), age(r.createdAt, nowMs)])
  )

/** Records in a stable order: by project, then session number. */
export const sortRecords = (records: ReadonlyArray<SessionRecord>) =>
  [...records].sort((a, b) =>
    a.projectId.localeCompare(b.projectId) ||
    Number(a.sessionId.split("-").at(-1)) - Number(b.sessionId.split("-").at(-1)) ||
    a.sessionId.localeCompare(b.sessionId)
  )

export const status = Command.make(
  "status",
  { json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print a JSON array of session records")) },
  Effect.fn("cli.status")(function*({ json }) {
    const { SessionStore } = yield* Effect.promise(() => import("../store/SessionStore.ts"))
    const { latestSignal } = yield* Effect.promise(() => import("../store/activity-file.ts"))
    const { records, problems, paths } = yield* SessionStore.use((store) => Effect.map(store.list, (list) => ({ ...list, paths: store.paths }))).pipe(
      Effect.provide(SessionStore.layer)
    )
    for (const problem of problems) yield* Console.error(`orch: warning: ${problem}`)
    const sorted = sortRecords(records).map((record) => withLatestActivity(record, latestSignal(paths.activity(record.projectId, record.sessionId))))
    if (json) return yield* Console.log(JSON.stringify(sorted))
    if (sorted.length === 0) return yield* Console.log("No sessions. Start one with `orch spawn <project> <issue>`.")
    const now = yield* Clock.currentTimeMillis
    yield* Console.log(statusTable(sorted, now))
    const budget = repohostBudget(paths.root, now)
    if (budget !== undefined) yield* Console.log(budget)
  })
).pipe(Command.withDescription("List all sessions with their status and activity"))
