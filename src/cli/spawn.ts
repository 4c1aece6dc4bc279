/** `orch spawn <project> <issue>` and `orch batch-spawn <project> <issue>...`. */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { Host } from "../config/host.ts"
import { batchFailedMessage, batchSummary, describeOutcome } from "../domain/batch-summary.ts"
import { normalIssueId } from "../domain/issue-id.ts"
import type { SpawnAsked } from "../domain/spawn-fate.ts"
import { taskTitle } from "../domain/task.ts"
import type { BatchOutcome, SpawnTarget } from "../sessions/SessionOps.ts"
import { eventLogEnd } from "../store/events-after.ts"
import { dataDir, storePaths } from "../store/paths.ts"
import type { SessionsWhere } from "./session-context.ts"
import { taskFileFlag, taskFlag, workFrom } from "./task-input.ts"

const project = Argument.String("project").pipe(Argument.withDescription("Project id or its key in the config"))
const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))
const loadSessions = () => import("./session-context.ts")

/** What to spawn for, from exactly one of: an issue id, `--task`, `--task-file` (read here). */
const spawnTargetFrom = (issue: Option.Option<string>, task: Option.Option<string>, taskFile: Option.Option<string>) =>
  Effect.map(
    workFrom(Option.toArray(issue), task, taskFile, { issue: "an issue id", usage: "orch spawn <project> 42" }),
    (work): SpawnTarget => (work._tag === "Task" ? { _tag: "Task", task: work.task } : { _tag: "Issue", issue: work.issues[0]! })
  )

export const spawn = Command.make(
  "spawn",
  {
    project,
    issue: Argument.String("issue").pipe(Argument.withDescription("Issue id (e.g. 42); or use --task"), Argument.optional),
    task: taskFlag,
    taskFile: taskFileFlag,
    host: Flag.String("host").pipe(
      Flag.withDescription("Run the session on this host (a name under hosts: in the config, or local); default: the one with the most headroom"),
      Flag.optional
    ),
    json
  },
  Effect.fn("cli.spawn")(function*({ project, issue, task, taskFile, host, json }) {
    const target = { ...(yield* spawnTargetFrom(issue, task, taskFile)), ...(Option.isSome(host) ? { host: host.value } : {}) }
    const [{ withSessions }, { tellInterruptedSpawn }] = yield* Effect.promise(() => Promise.all([loadSessions(), import("./spawn-interrupted.ts")]))
    // Interrupted (Ctrl-C, a signal), it says what became of the spawn: finished, or stopped and undone.
    const eventsPath = storePaths(dataDir(yield* Host)).events
    const from = eventLogEnd(eventsPath)
    const begun = yield* Ref.make<SessionsWhere | undefined>(undefined)
    const finished = yield* Ref.make<string | undefined>(undefined)
    const asked: SpawnAsked = target._tag === "Issue"
      ? { project, issueId: normalIssueId(target.issue) }
      : { project, taskTitle: taskTitle(target.task) }
    yield* Effect.gen(function*() {
      const { record, warnings, recovered } = yield* withSessions((sessions, where) => Effect.andThen(Ref.set(begun, where), sessions.spawn(project, target)), {
        project
      })
      yield* Ref.set(finished, record.sessionId)
      for (const line of recovered ?? []) yield* Console.error(`orch: ${line}`)
      for (const warning of warnings) yield* Console.error(`orch: warning: ${warning}`)
      yield* Console.log(json ? JSON.stringify(record, null, 2) : record.sessionId)
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.flatMap(
          Effect.all([Ref.get(begun), Ref.get(finished)]),
          ([where, sessionId]) => tellInterruptedSpawn({ eventsPath, from, asked, begun: where, finished: sessionId })
        )
      )
    )
  })
).pipe(Command.withDescription("Create a session for one issue, or for a task (--task): worktree, branch, terminal, agent"))

export class BatchFailed extends Schema.TaggedError<BatchFailed>()("BatchFailed", { failed: Schema.Int }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return batchFailedMessage(this.failed)
  }
}

export const batchSpawn = Command.make(
  "batch-spawn",
  { project, issues: Argument.String("issue").pipe(Argument.withDescription("Issue ids"), Argument.atLeast(1)), json },
  Effect.fn("cli.batchSpawn")(function*({ project, issues, json }) {
    const [{ withSessions }, { tellInterruptedBatch }] = yield* Effect.promise(() => Promise.all([loadSessions(), import("./batch-interrupted.ts")]))
    // Interrupted (Ctrl-C, a signal), it says what became of each issue: started, waiting in the queue, or neither.
    const root = dataDir(yield* Host)
    const eventsPath = storePaths(root).events
    const from = eventLogEnd(eventsPath)
    const begun = yield* Ref.make<SessionsWhere | undefined>(undefined)
    const outcomes = yield* withSessions(
      (sessions, where) =>
        Effect.andThen(
          Ref.set(begun, where),
          sessions.batchSpawn(project, issues, (outcome) => (json ? Effect.void : Console.log(describeOutcome(outcome))))
        ),
      { project }
    ).pipe(
      Effect.onInterrupt(() =>
        Effect.flatMap(Ref.get(begun), (where) =>
          tellInterruptedBatch({
            root,
            eventsPath,
            from,
            issues: issues.map(normalIssueId),
            supervised: where === "supervisor",
            taken: where !== undefined
          }))
      )
    )
    const count = (tag: BatchOutcome["_tag"]) => outcomes.filter((o) => o._tag === tag).length
    if (json) yield* Console.log(JSON.stringify(outcomes, null, 2))
    else for (const line of batchSummary(outcomes)) yield* Console.log(line)
    if (count("Failed") > 0) return yield* new BatchFailed({ failed: count("Failed") })
  })
).pipe(
  Command.withDescription(
    "Create one session per issue, a few at a time, skipping issues that have a live session; what the admission rule does not let start now (maxSessions, memory) is queued"
  )
)
