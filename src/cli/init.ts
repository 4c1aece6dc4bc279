/** `orch init [--force] [--user]`: the command; what it does is in init-run.ts, loaded when it runs. */
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"

export const init = Command.make(
  "init",
  {
    force: Flag.Boolean("force").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Overwrite an existing orchestrator.yaml, or write one where a config found from here already has this repository")
    ),
    user: Flag.Boolean("user").pipe(
      Flag.withAlias("global"),
      Flag.withDefault(false),
      Flag.withDescription(
        "Add this repository to your user config (~/.config/orchestrator/config.yaml), found from any directory, instead of writing orchestrator.yaml here; asked when run in a terminal"
      )
    )
  },
  (flags) => Effect.flatMap(Effect.promise(() => import("./init-run.ts")), ({ runInit }) => runInit(flags))
).pipe(Command.withDescription("Create orchestrator.yaml here for this repository, or add the repository to your user config (--user)"))
