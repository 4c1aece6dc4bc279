/**
 * What `orch spawn` and `orch queue add` are given to work on: issue ids, or a task in a person's words (`--task`, or
 * `--task-file` read here), never both; a usage mistake is exit 2 with what to give instead.
 */
import { Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"

export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return this.reason
  }
}

export const taskFlag = Flag.String("task").pipe(
  Flag.withDescription("A task in your words, instead of an issue: the agent's prompt; the branch is feat/<its first words>"),
  Flag.optional
)
export const taskFileFlag = Flag.String("task-file").pipe(Flag.withDescription("Read the task from a file"), Flag.optional)

/**
 * Issue ids or a task, exactly one of them. For the messages: `issue` names what the command takes ("an issue id",
 * "issue ids") and `usage` shows it ("orch spawn <project> 42").
 */
export const workFrom = (
  issues: ReadonlyArray<string>,
  task: Option.Option<string>,
  taskFile: Option.Option<string>,
  words: { readonly issue: string; readonly usage: string }
): Effect.Effect<{ readonly _tag: "Issues"; readonly issues: ReadonlyArray<string> } | { readonly _tag: "Task"; readonly task: string }, UsageError> => {
  const given = [issues.length > 0, Option.isSome(task), Option.isSome(taskFile)].filter(Boolean).length
  if (given !== 1) {
    return Effect.fail(
      new UsageError({
        reason: given === 0
          ? `say what the session is for: ${words.issue} (${words.usage}) or a task (--task "…" or --task-file <path>)`
          : `give one of ${words.issue}, --task or --task-file, not several`
      })
    )
  }
  if (issues.length > 0) return Effect.succeed({ _tag: "Issues", issues })
  if (Option.isSome(task)) return Effect.succeed({ _tag: "Task", task: task.value })
  const path = Option.getOrThrow(taskFile)
  return Effect.try({
    try: () => ({ _tag: "Task" as const, task: readFileSync(path, "utf8") }),
    catch: (e) =>
      new UsageError({ reason: `cannot read the task file ${path} (${(e as NodeJS.ErrnoException).code ?? String(e)}); give a readable file to --task-file` })
  })
}
