/**
 * What `orch status [--json]` does (its command is in status.ts, so the command tree loads none of this): every
 * session, from the records alone (no tmux, git or network call). Without a running supervisor the live ones are
 * marked as last recorded, with how long ago (status-view.ts); with or without one, a session whose agent's process
 * is gone (the pid its terminal's handle keeps, asked of the system) shows errored. A spawn whose process died half-way shows as
 * `interrupted`; with no supervisor to undo it, this command does (interrupted.ts), and only then loads the config
 * and plugins. With one, a line about its config file when an edit was not applied or waits for a restart (actors/config-status.ts). A line when the
 * supervisor met errors in its loops lately (supervisor-errors.ts). A live session whose project is not in the config
 * the running supervisor serves shows as `unwatched`, with a line saying what to do. A line per predicted conflict
 * between live sessions (conflicts.json, which the supervisor writes), and each session's `conflicts` in `--json`.
 */
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { configNotes } from "../../actors/config-status.ts"
import { Host } from "../config/host.ts"
import { type RateBudget, RepohostBudgets } from "../domain/rate-budget.ts"
import { isEnded, type SessionRecord } from "../domain/session.ts"
import { agentGoneChecker, asListed } from "../store/spawner.ts"
import { asShown, awaitingReviewLine, exitedLines, rateLimitedLines, recordedNote, statusTable, unwatchedLine } from "./status-view.ts"

const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`

/** One project's part of the budget line: what is left of the tightest resource, and a pause the host asked for. */
export const budgetPart = (project: string, budget: RateBudget, nowMs: number): string => {
  const unit = budget.resource === "graphql" ? "GraphQL points" : "requests"
  const left = budget.limit > 0 ? `${budget.remaining}/${budget.limit} ${unit} left, resets ${hhmm(budget.reset * 1000)}` : "no budget seen yet"
  return budget.blockedUntil !== undefined && budget.blockedUntil > nowMs
    ? `${project} ${left}; paused until ${hhmm(budget.blockedUntil)} (the host asked)`
    : `${project} ${left}`
}

/**
 * "repohost budget: …" from what the supervisor last saw (nothing when it never polled a repohost), or a warning
 * when its file cannot be read.
 */
export const repohostBudget = (root: string, nowMs: number): { readonly line?: string; readonly warning?: string } => {
  const path = join(root, "repohost.json")
  if (!existsSync(path)) return {}
  const decoded = Result.try(() => readFileSync(path, "utf8")).pipe(
    Result.mapError((error) => (error instanceof Error ? error.message : String(error))),
    Result.flatMap((text) =>
      Result.mapError(Schema.decodeUnknownResult(Schema.fromJsonString(RepohostBudgets))(text), (error) => error.message.split("\n").join(" "))
    )
  )
  if (Result.isFailure(decoded)) return { warning: `the repohost budget in ${path} cannot be read: ${decoded.failure}` }
  const parts = Object.entries(decoded.success.budgets).map(([project, budget]) => budgetPart(project, budget, nowMs))
  return parts.length > 0 ? { line: `repohost budget: ${parts.join("; ")}` } : {}
}

/**
 * Records in a stable order: by project (`localeCompare`), then session number, then id. Each record's number is
 * read once, and the projects are ranked once among themselves, so a list of one project never loads ICU and one of
 * many compares its few project ids, not its records, by locale; the order is the same as comparing every pair.
 */
export const sortRecords = <R extends Pick<SessionRecord, "projectId" | "sessionId">>(records: ReadonlyArray<R>): Array<R> => {
  const projects = [...new Set(records.map((r) => r.projectId))].sort((a, b) => a.localeCompare(b))
  // Ids the locale finds equal (e.g. two spellings of one accented letter) share a rank, as they compared equal before.
  const rank = new Map<string, number>()
  projects.forEach((id, i) => rank.set(id, i > 0 && id.localeCompare(projects[i - 1]!) === 0 ? rank.get(projects[i - 1]!)! : i))
  const keyed = records.map((record) => ({ record, project: rank.get(record.projectId)!, n: Number(record.sessionId.split("-").at(-1)) }))
  keyed.sort((a, b) =>
    a.project - b.project || a.n - b.n ||
    (a.record.sessionId === b.record.sessionId ? 0 : a.record.sessionId.localeCompare(b.record.sessionId))
  )
  return keyed.map((k) => k.record)
}

export const runStatus = Effect.fn("cli.status")(function*({ json }: { readonly json: boolean }) {
  const { SessionStore } = yield* Effect.promise(() => import("../store/SessionStore.ts"))
  const { latestSignal } = yield* Effect.promise(() => import("../store/activity-file.ts"))
  const { seeSupervisor } = yield* Effect.promise(() => import("./supervisor-seen.ts"))
  const { readConfigState } = yield* Effect.promise(() => import("../store/config-state.ts"))
  const { readRecentErrors, supervisorErrorsNote } = yield* Effect.promise(() => import("./supervisor-errors.ts"))
  const { queueLines } = yield* Effect.promise(() => import("./queue-view.ts"))
  const { records, problems, paths } = yield* SessionStore.use((store) => Effect.map(store.list, (list) => ({ ...list, paths: store.paths }))).pipe(
    Effect.provide(SessionStore.layer)
  )
  for (const problem of problems) yield* Console.error(`orch: warning: ${problem}`)
  // A supervisor runs when it answers (src/ipc/liveness.ts): a killed one, or a zombie, refuses at once. One that
  // holds its socket but does not answer (stopped, stuck), or one on its way out, is said so: sessions then show what
  // was recorded.
  const seen = yield* Effect.promise(() => seeSupervisor(paths.root))
  if (seen.warning !== undefined) yield* Console.error(`orch: warning: ${seen.warning}`)
  const supervisor = seen.answer
  const supervised = supervisor !== undefined
  const silent = seen.silent !== undefined
  const now = yield* Clock.currentTimeMillis
  // Hosts that stopped answering, as the running supervisor's host watch saw them.
  const [{ downHostLines }, { hostViewsOf }] = yield* Effect.promise(() => Promise.all([import("./hosts-view.ts"), import("../hosts/host-watch.ts")]))
  const hostViews = supervisor !== undefined ? hostViewsOf(paths.hosts, supervisor.pid) : new Map<string, never>()
  const hostsDown = downHostLines(hostViews, records)
  const downHosts = new Set([...hostViews].filter(([, view]) => view.status === "down").map(([host]) => host))
  const watched = supervisor?.projects === undefined ? undefined : new Set(supervisor.projects)
  // A session whose agent's process is gone is shown so at once: a running supervisor records it only once its
  // probes agree (seconds later), and the process the handle names cannot come back.
  const agentGone = agentGoneChecker()
  // An ended session shows what it ended as: its agent's signals are not read.
  const rows = sortRecords(records).map((record) => {
    const listed = asListed(record)
    return asShown(listed, isEnded(listed.status) ? undefined : latestSignal(paths.activity(record.projectId, record.sessionId)), {
      supervised,
      nowMs: now,
      downHosts,
      agentGone: agentGone(record),
      ...(watched !== undefined ? { watched } : {})
    })
  })
  const unwatched = unwatchedLine(rows, supervisor?.configPath)
  // Spawns whose process died half-way show as interrupted; with no supervisor to undo them, this command does (not
  // beside one that is there but silent: it would be a second writer).
  const interrupted = rows.filter((row) => row.status === "interrupted")
  const undone = interrupted.length === 0 || supervised || silent
    ? { lines: [], warnings: [] }
    : yield* Effect.flatMap(
      Effect.promise(() => Promise.all([import("./interrupted.ts"), import("@effect/platform-node/NodeServices")])),
      ([{ undoInterruptedSpawns }, NodeServices]) => undoInterruptedSpawns(interrupted).pipe(Effect.provide(NodeServices.layer))
    )
  for (const warning of undone.warnings) yield* Console.error(`orch: warning: ${warning}`)
  // Predicted conflicts between the live sessions and the merge trains, as the supervisor last wrote them; where it
  // never did (no file), nothing of them is loaded.
  const liveIds = new Set(rows.filter((row) => !isEnded(row.status)).map((row) => row.sessionId))
  const conflicts = existsSync(paths.conflicts)
    ? yield* Effect.flatMap(Effect.promise(() => import("./conflicts-view.ts")), (view) => view.statusConflicts(paths.root, liveIds))
    : undefined
  const trains = existsSync(paths.trains)
    ? yield* Effect.flatMap(Effect.promise(() => import("./train-view.ts")), (view) => view.statusTrains(paths.root, supervised))
    : undefined
  const recent = readRecentErrors(paths.events, now)
  const errorsNote = recent === undefined ? undefined : supervisorErrorsNote(recent, paths, (yield* Host).homeDir)
  // The spec makes --json's output an array of sessions: the notes go beside it, on stderr.
  if (json) {
    if (unwatched !== undefined) yield* Console.error(`orch: warning: ${unwatched}`)
    for (const line of hostsDown) yield* Console.error(`orch: warning: ${line}`)
    if (errorsNote !== undefined) yield* Console.error(`orch: warning: ${errorsNote}`)
    for (const line of undone.lines) yield* Console.error(`orch: ${line}`)
    // A session in a merge train shows its place there and what it waits on.
    return yield* Console.log(JSON.stringify(rows.map((row) => {
      const shown = conflicts === undefined ? row : conflicts.row(row)
      const place = trains?.places.get(row.sessionId)
      return place === undefined ? shown : { ...shown, train: place }
    })))
  }
  // Only the running supervisor's word counts: a file left by another one says nothing.
  const configState = readConfigState(paths.root)
  const notes = supervisor !== undefined && configState?.pid === supervisor.pid ? configNotes(configState, (yield* Host).homeDir) : []
  const queued = [...yield* queueLines(paths.root, supervisor?.pid), ...(trains?.lines ?? [])]
  if (rows.length === 0) {
    const { noSessionsHint, projectTrackersHere } = yield* Effect.promise(() => import("./empty-hints.ts"))
    yield* Console.log(noSessionsHint(yield* projectTrackersHere))
    for (const line of queued) yield* Console.log(line)
    for (const line of notes) yield* Console.log(line)
    if (errorsNote !== undefined) yield* Console.log(errorsNote)
    return
  }
  yield* Console.log(statusTable(rows, now))
  if (unwatched !== undefined) yield* Console.log(unwatched)
  for (const line of undone.lines) yield* Console.log(line)
  for (const line of hostsDown) yield* Console.log(line)
  for (const line of queued) yield* Console.log(line)
  for (const line of rateLimitedLines(records, now, supervisor !== undefined)) yield* Console.log(line)
  for (const line of exitedLines(records)) yield* Console.log(line)
  for (const line of conflicts?.lines ?? []) yield* Console.log(line)
  const reviews = awaitingReviewLine(records)
  if (reviews !== undefined) yield* Console.log(reviews)
  const note = recordedNote(rows, silent)
  if (note !== undefined) yield* Console.log(note)
  const budget = repohostBudget(paths.root, now)
  if (budget.line !== undefined) yield* Console.log(budget.line)
  if (budget.warning !== undefined) yield* Console.error(`orch: warning: ${budget.warning}`)
  for (const line of notes) yield* Console.log(line)
  if (errorsNote !== undefined) yield* Console.log(errorsNote)
})
