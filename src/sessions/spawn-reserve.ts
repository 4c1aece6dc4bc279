/**
 * A spawn's first steps, before anything is made: the session id reserved (and admission's claim on it), the branch
 * chosen, and the first record written, which another spawn of the same issue sees.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import { isEnded, type SessionRecord, worksAnIssue } from "../domain/session.ts"
import type { Issue } from "../plugins/tracker/Tracker.ts"
import { storePaths } from "../store/paths.ts"
import { processStartTime } from "../store/process-liveness.ts"
import { pathsOn } from "./agent-files.ts"
import { sessionBranch } from "./branch-name.ts"
import { IssueHasSession } from "./errors.ts"
import { nowIso } from "./record-update.ts"
import { save, type SessionDraft } from "./spawn-draft.ts"
import { firstRecord } from "./spawn-record.ts"
import { spawnFailed, type SpawnRun, undoing } from "./spawn-run.ts"
import { MAX_TASK_BRANCH_TRIES, taskBranchCandidates } from "./task.ts"

/**
 * Reserves the session's id, then lets admission claim its entry with it. Undone last: an id whose undo saved work
 * to its rescue ref is retired, not released (that ref stays this spawn's).
 */
export const reserveSession = Effect.fnUntraced(function*(run: SpawnRun) {
  const { project, store } = run
  const sessionId = yield* Effect.acquireRelease(
    store.reserve(project.id, project.sessionPrefix).pipe(Effect.mapError(spawnFailed(run, "reserving a session id"))),
    (id, exit) =>
      Exit.isFailure(exit)
        ? undoing(run, `release the session id ${id}`, Effect.suspend(() => (run.rescued ? store.remove(project.id, id) : store.release(project.id, id))))
        : Effect.void
  )
  if (run.options.claim !== undefined) yield* run.options.claim(sessionId)
  return sessionId
})

/**
 * A task's branch: `feat/<slug>`, or `-2`, `-3`… when a branch or another session already has it. On a host the
 * start itself refuses a branch its clone or origin has (BranchTaken, then the next is tried): no round trip first.
 */
export const taskBranch = (run: SpawnRun, slug: string, taken: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const { records } = yield* run.store.list
    const inUse = new Set(records.filter((r) => r.projectId === run.project.id).map((r) => r.branch))
    for (const branch of taskBranchCandidates(slug)) {
      if (inUse.has(branch) || taken.has(branch)) continue
      if (run.onHost !== undefined || !(yield* run.workspace.hasBranch(run.project, branch))) return branch
    }
    return yield* Effect.fail(`every branch from feat/${slug} to feat/${slug}-${MAX_TASK_BRANCH_TRIES} is taken; say the task in other words`)
  }).pipe(Effect.mapError(spawnFailed(run, "choosing a branch")))

const sessionNumber = (sessionId: string) => Number(sessionId.split("-").at(-1))

/**
 * Of two spawns of one issue that raced past the check before them (two processes, or a person's and admission's),
 * the one with the lower session number goes on; the other fails and undoes itself. Its record is written first,
 * so each of the two sees the other.
 */
const firstForIssue = (run: SpawnRun, mine: SessionRecord) =>
  Effect.flatMap(run.store.list, ({ records }) => {
    const rival = records.find((r) =>
      r.sessionId !== mine.sessionId && r.projectId === mine.projectId && r.issueId === mine.issueId && worksAnIssue(r) && !isEnded(r.status) &&
      sessionNumber(r.sessionId) < sessionNumber(mine.sessionId)
    )
    return rival === undefined
      ? Effect.void
      : Effect.fail(new IssueHasSession({ issueId: mine.issueId, sessionId: rival.sessionId, ...(rival.status === "spawning" ? { spawning: true } : {}) }))
  })

/**
 * The session's branch chosen (an issue's as its tracker names it when it does: `early`), and its first record
 * written. Not yet durable: nothing is made before the journal's first entry, which is (a power cut before it loses
 * a record of nothing; a kill -9 loses nothing written).
 */
export const draftSession = Effect.fnUntraced(function*(run: SpawnRun, sessionId: string, early: Issue | undefined, takenOnHost: ReadonlySet<string>) {
  const { work, store } = run
  const branch = work._tag === "Task" ? yield* taskBranch(run, work.label, takenOnHost) : sessionBranch(run.issueId, early)
  if (work._tag === "Task") run.issueId = branch.slice("feat/".length)
  const createdAt = yield* nowIso
  const startTime = yield* Effect.sync(() => processStartTime(process.pid))
  // The session's files where it runs: on a host, under its data dir there (named by the placement's reading).
  const there = run.onHost === undefined
    ? store.paths
    : run.options.hostDataDir !== undefined
    ? storePaths(run.options.hostDataDir)
    : yield* pathsOn(store.paths, run.workspace).pipe(Effect.mapError(spawnFailed(run, "creating the workspace")))
  const record = firstRecord(run, {
    sessionId,
    branch,
    there,
    createdAt,
    conversationId: randomUUID(),
    spawner: { pid: process.pid, ...(startTime === undefined ? {} : { startTime }) }
  })
  const draft: SessionDraft = { run, sessionId, there, record }
  yield* save(draft, record, { durable: false })
  if (work._tag === "Issue") yield* firstForIssue(run, record)
  if (run.options.drafted !== undefined) yield* run.options.drafted
  return draft
})
