/**
 * `orch start [project]`: the supervisor (in the foreground, or `--detach`ed) and the project's orchestrator
 * session; the project may be left out when the config has only one. With a supervisor already running it joins
 * it: the project's orchestrator is started there, or reused if it is live. `orch stop [--kill-sessions]` stops the
 * supervisor; agents keep running unless asked.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { Host } from "../config/host.ts"
import { dataDir } from "../store/paths.ts"
import { rescueNote } from "./format.ts"

export class SupervisorUnavailable extends Schema.TaggedError<SupervisorUnavailable>()("SupervisorUnavailable", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return this.reason
  }
}

const loadRun = () => import("./start-run.ts")

export const start = Command.make(
  "start",
  {
    project: Argument.String("project").pipe(
      Argument.withDescription("Project id or key (may be left out when the config has one project)"),
      Argument.optional
    ),
    detach: Flag.Boolean("detach").pipe(Flag.withDefault(false), Flag.withDescription("Run the supervisor in the background and return once it answers")),
    noOpen: Flag.Boolean("no-open").pipe(Flag.withDefault(false), Flag.withDescription("Print the dashboard URL without opening a browser"))
  },
  Effect.fn("cli.start")(function*({ project, detach: background, noOpen }) {
    const { runStart } = yield* Effect.promise(loadRun)
    yield* runStart(dataDir(yield* Host), Option.getOrUndefined(project), background, noOpen)
  })
).pipe(Command.withDescription("Start the supervisor and the project's orchestrator session"))

export const stop = Command.make(
  "stop",
  {
    killSessions: Flag.Boolean("kill-sessions").pipe(Flag.withDefault(false), Flag.withDescription("Also kill every session (unsaved work is rescued first)"))
  },
  Effect.fn("cli.stop")(function*({ killSessions }) {
    const root = dataDir(yield* Host)
    const { answered, clearAfterDead, connectSupervisor, isProcessAlive, unresponsive } = yield* Effect.promise(loadRun)
    yield* Effect.scoped(Effect.gen(function*() {
      const found = yield* connectSupervisor(root)
      if (found._tag === "Unresponsive") return yield* unresponsive(found)
      if (found._tag === "NotRunning") {
        const dead = yield* clearAfterDead(root, found.leftovers)
        const none = dead === undefined ? "No supervisor is running" : `No supervisor is running (pid ${dead} had died; removed the files it left)`
        if (!killSessions) return yield* Console.log(`${none}.`)
        // Nothing to stop, but the sessions to kill are killed here, as `orch session kill` would.
        const { killEverySession } = yield* Effect.promise(() => import("./kill-all.ts"))
        const done = yield* killEverySession()
        for (const killed of done.killed) yield* Console.log(`killed ${killed.sessionId}${rescueNote(killed)}`)
        for (const failed of done.failed) yield* Console.error(`orch: ${failed.sessionId} was not killed: ${failed.reason}`)
        yield* Console.log(`${none}; ${done.killed.length} session(s) killed`)
        if (done.failed.length > 0) return yield* new SupervisorUnavailable({ reason: `${done.failed.length} session(s) could not be killed; see above` })
        return
      }
      const { pid } = found.info
      const stopped = yield* answered(found.client.Stop({ killSessions }))
      yield* Effect.suspend(() => (isProcessAlive(pid) ? Effect.fail("running") : Effect.void)).pipe(
        Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 600 }),
        Effect.mapError(() =>
          new SupervisorUnavailable({ reason: `the supervisor (pid ${pid}) did not stop within 30 s; see its log, supervisor.log in the data directory` })
        )
      )
      for (const killed of stopped.killed) yield* Console.log(`killed ${killed.sessionId}${rescueNote(killed)}`)
      for (const failed of stopped.failed) yield* Console.error(`orch: ${failed.sessionId} was not killed: ${failed.reason}`)
      const { listQueue } = yield* Effect.promise(() => import("../store/QueueStore.ts"))
      const waiting = yield* listQueue(root).pipe(Effect.map((entries) => entries.length), Effect.orElseSucceed(() => 0))
      yield* Console.log(
        `supervisor stopped (pid ${pid})${killSessions ? `; ${stopped.killed.length} session(s) killed` : "; sessions keep running"}${
          waiting > 0 ? `; ${waiting} queued ${waiting === 1 ? "entry waits" : "entries wait"} for the next orch start` : ""
        }`
      )
      if (stopped.failed.length > 0) return yield* new SupervisorUnavailable({ reason: `${stopped.failed.length} session(s) could not be killed; see above` })
    }))
  })
).pipe(Command.withDescription("Stop the supervisor; agent sessions keep running unless --kill-sessions"))
