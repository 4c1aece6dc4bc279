/** `orch send <session> <message...>` (or `--file F`): types a message into the session's agent and confirms it. */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { fileProblem } from "../process/file-problem.ts"

export class NoMessage extends Schema.TaggedError<NoMessage>()("NoMessage", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return this.reason
  }
}

export const send = Command.make(
  "send",
  {
    session: Argument.String("session").pipe(Argument.withDescription("Session id, e.g. app-3")),
    message: Argument.String("message").pipe(Argument.withDescription("The message"), Argument.variadic()),
    file: Flag.String("file").pipe(Flag.withDescription("Read the message from a file"), Flag.optional)
  },
  Effect.fn("cli.send")(function*({ session, message, file }) {
    const text = file._tag === "Some"
      ? yield* Effect.try({
        try: () => readFileSync(file.value, "utf8"),
        catch: (e) => new NoMessage({ reason: `nothing sent: ${fileProblem(file.value, e)}` })
      })
      : message.join(" ")
    if (text.trim() === "") return yield* new NoMessage({ reason: "nothing to send: give a message or --file" })
    const { withSessionsFor } = yield* Effect.promise(() => import("./session-context.ts"))
    yield* withSessionsFor(session, (sessions) => sessions.send(session, text))
    yield* Console.log(`delivered to ${session}`)
  })
).pipe(Command.withDescription("Send a message to a session's agent"))
