/**
 * A spawn's start with the workspace here: the workspace made while the issue is looked up and the prompt written
 * (none orders the others), the agent's files, the terminal with the agent in it, and, for an agent with no ready
 * signal, the look at its first moments. Each thing made is undone when a later step fails (the spawn's scope).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { LaunchSpec } from "../plugins/runtime/Runtime.ts"
import type { Issue, TrackerError, TrackerUnavailable } from "../plugins/tracker/Tracker.ts"
import { makeAgentFiles } from "./agent-files.ts"
import { watchStart } from "./agent-start.ts"
import { prepareAgent } from "./spawn-agent.ts"
import { journal, type MadeWorkspace, type SessionDraft, undoTerminal, undoWorkspace } from "./spawn-draft.ts"
import { keepIssue, refuseIfClosed } from "./spawn-issue.ts"
import { spawnFailed } from "./spawn-run.ts"

/** The issue being looked up while the spawn goes on. */
export type IssueLookup = Fiber.Fiber<Issue | undefined, Exclude<TrackerError, TrackerUnavailable>>

/**
 * Makes the workspace. Whether the branch is made is journaled from the workspace's own look, before it makes
 * anything (one look). Its making (git, the project's postCreate: an install may take minutes) can be cut short: a
 * spawn stopped there (Ctrl-C, a client gone) undoes what it had made of the workspace at once, instead of waiting it out.
 */
const makeWorkspace = (draft: SessionDraft) => {
  const { run, sessionId } = draft
  let planned: MadeWorkspace | undefined
  return Effect.acquireRelease(
    Effect.interruptible(run.workspace.create(
      { project: run.project, sessionId, branch: draft.record.branch, path: draft.record.workspacePath },
      (plan) =>
        Effect.suspend(() => {
          planned = { path: draft.record.workspacePath, branch: draft.record.branch, createdBranch: plan.createdBranch }
          // The terminal to come is journaled with the worktree: no write of its own between the two on the way
          // (undoing a spawn ends a journaled terminal only if it exists).
          return journal(draft, {
            workspace: draft.record.workspacePath,
            createdBranch: plan.createdBranch,
            runtime: { plugin: run.runtime.name, id: sessionId, data: {} }
          })
        })
    )).pipe(
      Effect.mapError((error) => (error._tag === "SpawnFailed" ? error : spawnFailed(run, "creating the workspace")(error))),
      Effect.onInterrupt(() => (planned === undefined ? Effect.void : undoWorkspace(draft, planned)))
    ),
    (made, exit) => (Exit.isFailure(exit) ? undoWorkspace(draft, made) : Effect.void)
  )
}

/** Starts the terminal session with the agent in it; ended again if the spawn fails later. */
const startTerminal = (draft: SessionDraft, spec: LaunchSpec) =>
  Effect.acquireRelease(
    draft.run.runtime.create(spec).pipe(Effect.mapError(spawnFailed(draft.run, "starting the terminal session"))),
    (handle, exit) => (Exit.isFailure(exit) ? undoTerminal(draft.run, handle) : Effect.void)
  )

export const startHere = Effect.fnUntraced(function*(draft: SessionDraft, issueFiber: IssueLookup) {
  const { run } = draft
  const [created, prepared] = yield* Effect.all([
    makeWorkspace(draft),
    Fiber.join(issueFiber).pipe(
      Effect.tap(refuseIfClosed(run)),
      Effect.tap((issue) => Effect.sync(() => keepIssue(draft, issue))),
      Effect.flatMap((issue) => prepareAgent(draft, issue))
    )
  ], { concurrency: 2 })
  run.warnings.push(...created.warnings)
  if (created.createdBranch !== draft.record.spawn?.createdBranch) yield* journal(draft, { createdBranch: created.createdBranch })
  const { launch } = prepared
  yield* makeAgentFiles(run.workspace, run.store.paths, draft.there, { projectId: run.project.id, sessionId: draft.sessionId }, launch.files ?? []).pipe(
    Effect.mapError(spawnFailed(run, "preparing the agent"))
  )
  const handle = yield* startTerminal(draft, prepared.spec)
  // The look at an agent with no ready signal overlaps the slow half of the record's last write (its fsync); the
  // record says the session works only once the look saw the agent alive.
  const watching = launch.initialMessage === undefined
    ? yield* Effect.forkScoped(watchStart(run.runtime, handle).pipe(Effect.mapError(spawnFailed(run, "starting the agent"))))
    : undefined
  return { handle, launch, watching }
})
