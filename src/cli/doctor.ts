/** `orch doctor`: the command; what it checks is in doctor-run.ts, loaded when it runs. */
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"

export const doctor = Command.make(
  "doctor",
  {
    notify: Flag.Boolean("notify").pipe(Flag.withDefault(false), Flag.withDescription("Also send a test notification through the routing")),
    noCanary: Flag.Boolean("no-canary").pipe(Flag.withDefault(false), Flag.withDescription("Skip running the agents offline to check their screens"))
  },
  (flags) => Effect.flatMap(Effect.promise(() => import("./doctor-run.ts")), ({ runDoctor }) => runDoctor(flags))
).pipe(
  Command.withDescription(
    "Check git, tmux, the config, each host (it answers, with tmux, git, a writable data dir and each project's origin readable there), the agents (their versions, and offline whether orch still reads their screens) and, with --notify, the notifiers"
  )
)
