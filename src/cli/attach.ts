/** `orch attach <session>`: opens a session's terminal here, from any directory (see attach-terminal.ts). */
import { Argument, Command } from "effect/cli"
import * as Effect from "effect/Effect"

export const attach = Command.make(
  "attach",
  { session: Argument.String("session").pipe(Argument.withDescription("Session id, e.g. app-3")) },
  Effect.fn("cli.attach")(function*({ session }) {
    const { attachTerminal } = yield* Effect.promise(() => import("./attach-terminal.ts"))
    yield* attachTerminal(session)
  })
).pipe(Command.withDescription("Open a session's terminal here (tmux attach), from any directory"))
