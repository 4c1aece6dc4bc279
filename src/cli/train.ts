/**
 * `orch train ls`: each project's merge train (docs/supervisor.md "Merge train"), read from its file; no supervisor
 * needed (without one, it says the train stands until `orch start`). A project named is checked as `orch spawn` checks it.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Host } from "../config/host.ts"
import { dataDir } from "../store/paths.ts"

const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

/** What `orch train ls` says when no train has a car. */
export const emptyTrainHint = (project: string | undefined) =>
  `${project === undefined ? "No merge train has a PR in it" : `The merge train of ${project} has no PR in it`}. ` +
  "A project with `mergeTrain: true` in orchestrator.yaml lines up its approved and green PRs here and merges them one at a time."

const ls = Command.make(
  "ls",
  { project: Argument.String("project").pipe(Argument.withDescription("Only this project's train"), Argument.optional), json },
  Effect.fn("cli.train.ls")(function*({ json, project }) {
    const [{ shownTrains, trainLines }, { pingSupervisor }, { socketPath }] = yield* Effect.promise(() =>
      Promise.all([import("./train-view.ts"), import("../ipc/raw-ping.ts"), import("../store/supervisor-file.ts")])
    )
    const root = dataDir(yield* Host)
    const supervisor = yield* Effect.promise(() => pingSupervisor(socketPath(root)))
    // A project named must be one the config has (as `orch spawn` checks it); no config is needed to list them all.
    const named = project._tag === "Some"
      ? yield* Effect.flatMap(Effect.promise(() => import("./train-project.ts")), ({ trainProject }) => trainProject(project.value, supervisor))
      : undefined
    const trains = yield* shownTrains(root, named?.id)
    if (json) return yield* Console.log(JSON.stringify(trains, null, 2))
    const lines = trainLines(trains, supervisor !== undefined)
    if (named?.off !== undefined) yield* Console.log(named.off)
    else if (lines.length === 0) return yield* Console.log(emptyTrainHint(project._tag === "Some" ? project.value : undefined))
    for (const line of lines) yield* Console.log(line)
  })
).pipe(Command.withDescription("List each project's merge train in order, with what its head car waits on"))

export const train = Command.make("train").pipe(
  Command.withDescription("The merge train: approved and green PRs merged one at a time on the default branch as it is"),
  Command.withSubcommands([ls])
)
