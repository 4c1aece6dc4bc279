/**
 * The issue a spawn works: looked up in its tracker while the spawn goes on, refused when queued work finds it over,
 * and kept in the record (its title and address).
 */
import * as Effect from "effect/Effect"
import type { Issue } from "../plugins/tracker/Tracker.ts"
import { IssueClosed } from "./errors.ts"
import type { SessionDraft } from "./spawn-draft.ts"
import type { SpawnRun } from "./spawn-run.ts"

/**
 * The issue, as its tracker has it (a task has none). A tracker that cannot be asked now is said, and the spawn goes
 * on with the issue id alone; an issue that does not exist fails the spawn, which is undone like any other failure.
 */
export const lookupIssue = (run: SpawnRun) =>
  run.work._tag === "Task" ? Effect.succeed(undefined) : run.tracker.getIssue(run.work.label).pipe(
    Effect.catchTag("TrackerUnavailable", (error) =>
      Effect.sync(() => {
        run.unavailable = true
        run.warnings.push(`${error.message}; spawning with the issue id alone`)
        return undefined
      }))
  )

/** An issue its tracker says is over is not started when the spawn was asked to refuse it (queued work). */
export const refuseIfClosed = (run: SpawnRun) => (issue: Issue | undefined) =>
  run.options.refuseClosed === true && issue?.state?.completed === true
    ? Effect.fail(new IssueClosed({ issueId: run.issueId, state: issue.state.name }))
    : Effect.void

/** The record names the issue's title and address (not written yet: the next write of the record carries them). */
export const keepIssue = (draft: SessionDraft, issue: Issue | undefined) => {
  if (issue !== undefined) draft.record = { ...draft.record, issue: { title: issue.title, ...(issue.url ? { url: issue.url } : {}) } }
}
