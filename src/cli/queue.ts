/** `orch queue add|ls|rm`: the work queue in front of spawn (docs/queue.md); through the supervisor when one runs. */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { taskFileFlag, taskFlag, workFrom } from "./task-input.ts"

const loadSessions = () => import("./session-context.ts")
const loadEntries = () => import("../domain/queue.ts")
const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

const add = Command.make(
  "add",
  {
    project: Argument.String("project").pipe(Argument.withDescription("Project id or its key in the config")),
    issues: Argument.String("issue").pipe(Argument.withDescription("Issue ids; or use --task"), Argument.variadic()),
    task: taskFlag,
    taskFile: taskFileFlag,
    priority: Flag.Int("priority").pipe(Flag.withDefault(0), Flag.withDescription("Higher starts sooner; entries of one priority start in the order they came"))
  },
  Effect.fn("cli.queue.add")(function*({ issues, priority, project, task, taskFile }) {
    const work = yield* workFrom(issues, task, taskFile, { issue: "issue ids", usage: "orch queue add <project> 42 43" })
    const [{ withSessions }, { entryLabel }] = yield* Effect.promise(() => Promise.all([loadSessions(), loadEntries()]))
    const { added, already } = yield* withSessions(
      (sessions) => work._tag === "Task" ? sessions.queueTask(project, work.task, priority) : sessions.queueAdd(project, work.issues, priority),
      { project }
    )
    for (const entry of added) yield* Console.log(`${entryLabel(entry)}: queued as ${entry.id}, position ${entry.position}`)
    for (const entry of already) yield* Console.log(`${entryLabel(entry)}: already queued as ${entry.id}, position ${entry.position}`)
  })
).pipe(
  Command.withDescription(
    "Queue issues of a project (each checked with its tracker), or a task in your words (--task, --task-file): the supervisor starts each when the admission rule lets it"
  )
)

const ls = Command.make(
  "ls",
  { json },
  (flags) => Effect.flatMap(Effect.promise(() => import("./queue-ls.ts")), ({ runQueueLs }) => runQueueLs(flags))
).pipe(Command.withDescription("List the queue in order, with what each entry waits on"))

const rm = Command.make(
  "rm",
  { refs: Argument.String("entry").pipe(Argument.withDescription("Entry ids (q-3) or issue ids"), Argument.atLeast(1)) },
  Effect.fn("cli.queue.rm")(function*({ refs }) {
    const [{ withSessionsAnywhere }, { entryLabel }] = yield* Effect.promise(() => Promise.all([loadSessions(), loadEntries()]))
    // In the order given; the first that cannot be removed stops it, saying why (those before it are gone).
    for (const ref of refs) {
      const gone = yield* withSessionsAnywhere((sessions) => sessions.queueRemove(ref))
      for (const entry of gone) yield* Console.log(`removed ${entry.id} (${entry.projectId} ${entryLabel(entry)})`)
    }
  })
).pipe(Command.withDescription("Remove entries from the queue"))

export const queue = Command.make("queue").pipe(
  Command.withDescription("The work queue: what waits until the machine, the reviewers and maxSessions can take it"),
  Command.withSubcommands([add, ls, rm])
)
