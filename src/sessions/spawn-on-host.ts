/**
 * A spawn's start on another host: from the worktree to the agent started is one round trip (src/plugins/host-start.ts).
 * The branch is not asked about first: until the host says it made it, the journal keeps it (never deletes work).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { RuntimeHandle } from "../domain/session.ts"
import type { HostStarted, HostStartFailed, HostStartShape, StartStep } from "../plugins/host-start.ts"
import type { Issue } from "../plugins/tracker/Tracker.ts"
import { promptCopies } from "./agent-files.ts"
import { agentEndedReason, endedReason, lastPrintedLines, START_WATCH } from "./agent-start.ts"
import { prepareAgent } from "./spawn-agent.ts"
import { journal, save, type SessionDraft, undoTerminal, undoWorkspace } from "./spawn-draft.ts"
import type { IssueLookup } from "./spawn-here.ts"
import { keepIssue, refuseIfClosed } from "./spawn-issue.ts"
import { taskBranch } from "./spawn-reserve.ts"
import { spawnFailed } from "./spawn-run.ts"

/** A start on a host's steps, as a spawn's failure names them. */
const START_STEPS: Record<StartStep, string> = {
  workspace: "creating the workspace",
  files: "preparing the agent",
  terminal: "starting the terminal session",
  start: "starting the agent"
}

/** The origin the host gets the code from: as placement read it, else as the spawn asked it meanwhile. */
export type OriginLookup = Fiber.Fiber<string, HostStartFailed> | undefined

/**
 * Starts the session there, each try with the agent prepared for its branch: a task's branch the host's clone or
 * origin has already is refused (BranchTaken), and the next one is tried.
 */
const startTries = Effect.fnUntraced(function*(draft: SessionDraft, onHost: HostStartShape, issue: Issue | undefined, origin: string, taken: Set<string>) {
  const { run, sessionId } = draft
  for (;;) {
    const prepared = yield* prepareAgent(draft, issue)
    const plan = {
      workspace: { project: run.project, sessionId, branch: draft.record.branch, path: draft.record.workspacePath },
      origin,
      newBranch: run.work._tag === "Task",
      edits: [...promptCopies(run.store.paths, draft.there, run.project.id, sessionId), ...(prepared.launch.files ?? [])],
      launch: prepared.spec,
      ...(prepared.launch.initialMessage === undefined ? { watchAfterMs: Duration.toMillis(START_WATCH) } : {})
    }
    const attempt = yield* onHost.start(plan).pipe(
      Effect.map((started) => ({ started, launch: prepared.launch })),
      Effect.catchTag("BranchTaken", (refused) => Effect.succeed({ taken: refused.branch }))
    )
    if ("started" in attempt) return attempt
    taken.add(attempt.taken)
    const next = yield* taskBranch(run, run.work.label, taken)
    run.issueId = next.slice("feat/".length)
    yield* save(draft, { ...draft.record, issueId: run.issueId, branch: next })
  }
})

/** A start that failed there undoes what it says it made (or may have), and fails the spawn at its step. */
const undoFailedStart = Effect.fnUntraced(function*(draft: SessionDraft, error: HostStartFailed) {
  if (error.made.session !== undefined) yield* undoTerminal(draft.run, error.made.session)
  if (error.made.worktree !== undefined) yield* undoWorkspace(draft, { ...error.made.worktree, branch: draft.record.branch })
  return yield* spawnFailed(draft.run, START_STEPS[error.step])(error.message)
})

/** The look at the agent's first moments, made there: one that ended fails the spawn with what it printed. */
const refuseEndedAgent = Effect.fnUntraced(function*(draft: SessionDraft, handle: RuntimeHandle, watched: HostStarted["watched"]) {
  if (watched === undefined || watched.liveness._tag === "Alive") return
  const printed = lastPrintedLines(watched.screen)
  return yield* Effect.fail(
    spawnFailed(draft.run, "starting the agent")(
      printed.length > 0
        ? agentEndedReason(watched.liveness, printed, "as it started")
        : yield* endedReason(draft.run.runtime, handle, watched.liveness, "as it started")
    )
  )
})

export const startOnHost = Effect.fnUntraced(function*(
  draft: SessionDraft,
  onHost: HostStartShape,
  issueFiber: IssueLookup,
  originFiber: OriginLookup,
  takenOnHost: Set<string>
) {
  const { run } = draft
  const issue = yield* Fiber.join(issueFiber).pipe(Effect.tap(refuseIfClosed(run)))
  keepIssue(draft, issue)
  yield* journal(draft, { workspace: draft.record.workspacePath, createdBranch: false, runtime: onHost.handleOf(draft.sessionId) })
  const origin = originFiber === undefined
    ? run.options.hostOrigin!
    : yield* Fiber.join(originFiber).pipe(Effect.mapError((error) => spawnFailed(run, "creating the workspace")(error.message)))
  const { started, launch } = yield* startTries(draft, onHost, issue, origin, takenOnHost).pipe(
    Effect.catchTag("HostStartFailed", (error) => undoFailedStart(draft, error))
  )
  const { handle } = started
  yield* Effect.addFinalizer((exit) =>
    Exit.isFailure(exit)
      ? undoTerminal(run, handle).pipe(Effect.andThen(undoWorkspace(draft, { ...started, branch: draft.record.branch })))
      : Effect.void
  )
  yield* journal(draft, { createdBranch: started.createdBranch, runtime: handle })
  if (started.path !== draft.record.workspacePath) {
    yield* journal(draft, { workspace: started.path })
    yield* save(draft, { ...draft.record, workspacePath: started.path })
  }
  yield* refuseEndedAgent(draft, handle, started.watched)
  return { handle, launch, watching: undefined }
})
