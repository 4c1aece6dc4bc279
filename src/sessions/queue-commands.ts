/**
 * `orch queue add|ls|rm` without a supervisor's admission: issues (each checked, and its title kept) or a task
 * queued, entries removed, and the queue listed.
 */
import * as Effect from "effect/Effect"
import { firstInvalidIssueId, ISSUE_ID_EXPECTED, normalIssueId } from "../domain/issue-id.ts"
import { isEnded, worksAnIssue } from "../domain/session.ts"
import { InvalidIssueId } from "../plugins/tracker/Tracker.ts"
import { waitingReason } from "../store/admission-file.ts"
import { EmptyTask, IssueHasSession, NotQueued, QueueEntryStarting } from "./errors.ts"
import type { QueueingDeps } from "./queueing-deps.ts"

export const makeQueueCommands = (deps: QueueingDeps) => {
  const { queue, store } = deps

  /** Issues that could never start are refused when queued, not dropped later: not an issue id, one a live session works. */
  const queueAdd = Effect.fn("Queue.add")(function*(projectRef: string, issues: ReadonlyArray<string>, priority: number) {
    const config = yield* deps.config
    const project = yield* deps.findProject(config, projectRef)
    const invalid = firstInvalidIssueId(issues)
    if (invalid !== undefined) return yield* new InvalidIssueId({ issueId: invalid, expected: ISSUE_ID_EXPECTED })
    const ids = issues.map(normalIssueId)
    const { records } = yield* store.list
    for (const issueId of ids) {
      const live = records.find((r) => r.projectId === project.id && r.issueId === issueId && !isEnded(r.status) && worksAnIssue(r))
      if (live !== undefined) return yield* new IssueHasSession({ issueId, sessionId: live.sessionId })
    }
    // Asked all at once: an issue the tracker does not have is refused now, not dropped at admission; one it cannot
    // be asked about now (unavailable) is queued without its title.
    const titles = yield* Effect.forEach(ids, (issueId) =>
      deps.lookup(config, project, issueId).pipe(
        Effect.map((issue) => issue?.title),
        Effect.catch((error) => error._tag === "IssueNotFound" || error._tag === "InvalidIssueId" ? Effect.fail(error) : Effect.succeed(undefined))
      ), { concurrency: "unbounded" })
    return yield* queue.add(project.id, ids.map((issue, i) => ({ issue, ...(titles[i] !== undefined ? { title: titles[i] } : {}) })), priority)
  })

  /**
   * Queues a task in a person's words (`orch queue add --task`): kept whole in the entry, it is the agent's prompt
   * once admitted, as `orch spawn --task` makes it. No tracker is asked; the same task twice is two entries.
   */
  const queueTask = Effect.fn("Queue.task")(function*(projectRef: string, task: string, priority: number) {
    const config = yield* deps.config
    const project = yield* deps.findProject(config, projectRef)
    const text = task.trim()
    if (text === "") return yield* new EmptyTask({})
    return yield* queue.add(project.id, [{ task: text }], priority)
  })

  const queueRemove = Effect.fn("Queue.remove")(function*(ref: string) {
    const { removed, starting } = yield* queue.remove(ref, "removed (orch queue rm)")
    if (removed.length === 0 && starting.length > 0) {
      return yield* new QueueEntryStarting({ entryId: starting[0]!.id, sessionId: starting[0]!.admitting!.sessionId })
    }
    if (removed.length === 0) return yield* new NotQueued({ ref })
    return removed
  })

  /** Without a supervisor (the CLI's own procedures), nothing admits: every entry says so. */
  const queueList = () => Effect.map(queue.list, (entries) => entries.map((entry) => ({ ...entry, reason: waitingReason(undefined, undefined, entry) })))

  return { queueAdd, queueTask, queueRemove, queueList }
}
