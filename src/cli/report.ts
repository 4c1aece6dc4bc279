/**
 * `orch report <active|ready|waiting_input|rate_limited|done> [--note TEXT]`: an agent, or a wrapper around one, states its
 * activity from inside its session (`$ORCH_SESSION_ID`). The report is one line appended to the session's
 * activity file, the channel Claude Code's hooks use: a running supervisor sees it at once (it watches the
 * file), a supervisor started later folds it (it reads on from where the record says it stopped), and
 * `orch status` shows it either way. No socket, no config: it works the same with and without a supervisor.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { Host } from "../config/host.ts"
import { REPORTED_STATES, reportLine } from "../domain/activity.ts"
import { dataDir } from "../store/paths.ts"

export class NotInSession extends Schema.TaggedError<NotInSession>()("NotInSession", {}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return "orch report runs inside a session: $ORCH_SESSION_ID is not set (orch sets it for every agent it starts)"
  }
}

export class UnknownReportingSession extends Schema.TaggedError<UnknownReportingSession>()("UnknownReportingSession", {
  sessionId: Schema.String,
  dataDir: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `$ORCH_SESSION_ID names ${this.sessionId}, which has no record in ${this.dataDir}`
  }
}

export const report = Command.make(
  "report",
  {
    state: Argument.Literals("state", REPORTED_STATES).pipe(
      Argument.withDescription(
        "active: working; ready: finished its turn, waiting at its prompt; waiting_input: needs a person; rate_limited: its model provider turned it away (the note may name the reset, e.g. \"resets 4:12pm\"); done: finished its task"
      )
    ),
    note: Flag.String("note").pipe(Flag.optional, Flag.withDescription("A short note (what it waits for, what it finished), kept with the report"))
  },
  Effect.fn("cli.report")(function*({ state, note }) {
    const host = yield* Host
    const sessionId = host.env.ORCH_SESSION_ID
    if (sessionId === undefined || sessionId === "") return yield* new NotInSession()
    const [{ SessionStore }, { appendLine }] = yield* Effect.promise(() => Promise.all([import("../store/SessionStore.ts"), import("../store/files.ts")]))
    const store = SessionStore.make(dataDir(host))
    const record = yield* store.read(sessionId).pipe(
      Effect.catchTag("SessionNotFound", () => Effect.fail(new UnknownReportingSession({ sessionId, dataDir: store.paths.root })))
    )
    const now = yield* Clock.currentTimeMillis
    yield* appendLine(store.paths.activity(record.projectId, sessionId), reportLine(state, now, note._tag === "Some" ? note.value : undefined))
  })
).pipe(Command.withDescription("From inside a session: state what its agent is doing (prints nothing on success)"))
