/** `orch status [--json]`: the command; what it does is in status-run.ts, loaded when it runs. */
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"

export const status = Command.make(
  "status",
  {
    json: Flag.Boolean("json").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Print a JSON array of session records, each with `recorded` and `recordedAgeMs`")
    )
  },
  (flags) => Effect.flatMap(Effect.promise(() => import("./status-run.ts")), ({ runStatus }) => runStatus(flags))
).pipe(Command.withDescription("List all sessions with their status and activity (as last recorded, and how long ago, when no supervisor runs)"))
