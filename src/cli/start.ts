/**
 * `orch start <project>`: the supervisor (in the foreground, or `--detach`ed) and the project's orchestrator
 * session. With a supervisor already running it joins it: the project's orchestrator is started there, or
 * reused if it is live. `orch stop [--kill-sessions]` stops the supervisor; agents keep running unless asked.
 */
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { Argument, Command, Flag } from "effect/cli"
import { spawn as spawnProcess } from "node:child_process"
import { mkdirSync, openSync } from "node:fs"
import { join } from "node:path"
import { Host } from "../config/host.ts"
import { openOnThisMachine } from "../dashboard/open.ts"
import { dashboardUrl as makeDashboardUrl, pageUrl, sessionPath } from "../dashboard/urls.ts"
import { dataDir } from "../store/paths.ts"
import { runningSupervisor } from "../store/supervisor-file.ts"
import { VERSION } from "../version.ts"
import { rescueNote } from "./format.ts"

export class SupervisorUnavailable extends Schema.TaggedError<SupervisorUnavailable>()("SupervisorUnavailable", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return this.reason
  }
}

const cliPath = () => process.argv[1] ?? "orch"
const loadClient = () => import("../ipc/client.ts")

interface StartedReport {
  readonly project: string
  readonly orchestratorSessionId: string
  readonly reused: boolean
  readonly dashboardUrl: string
}

/** Prints where everything is, and opens the orchestrator's page (where a browser can be opened; quietly not otherwise). */
const report = (started: StartedReport, pid: number, open: boolean) => {
  const orchestratorPage = pageUrl(started.dashboardUrl, sessionPath(started.orchestratorSessionId))
  return Console.log([
    `supervisor running (pid ${pid})`,
    `orchestrator session ${started.orchestratorSessionId} ${started.reused ? "is already running" : "started"} for ${started.project}`,
    `attach: tmux attach -t ${started.orchestratorSessionId}`,
    `dashboard: ${started.dashboardUrl}`,
    `orchestrator page: ${orchestratorPage}`
  ].join("\n")).pipe(Effect.andThen(open ? Effect.ignore(openOnThisMachine(orchestratorPage)) : Effect.void))
}

/** Asks the running supervisor at `socket` to start the project's orchestrator. */
const startThere = (socket: string, project: string) =>
  Effect.scoped(Effect.gen(function*() {
    const { supervisorClient } = yield* Effect.promise(loadClient)
    const client = yield* supervisorClient(socket)
    const info = yield* client.Ping()
    return { started: yield* client.Start({ project }), pid: info.pid }
  }))

/** Starts a supervisor in the background and waits until it answers on its socket. */
const detach = (root: string, project: string) =>
  Effect.gen(function*() {
    mkdirSync(root, { recursive: true })
    const log = openSync(join(root, "supervisor.log"), "a")
    const child = spawnProcess(process.execPath, [cliPath(), "start", project, "--no-open"], { detached: true, stdio: ["ignore", log, log] })
    child.unref()
    const running = yield* Effect.suspend(() => {
      const file = runningSupervisor(root)
      return file === undefined ? Effect.fail("not yet") : Effect.succeed(file)
    }).pipe(
      Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 150 }),
      Effect.mapError(() => new SupervisorUnavailable({ reason: `the supervisor did not start within 15 s; see ${join(root, "supervisor.log")}` }))
    )
    return running
  })

export const start = Command.make(
  "start",
  {
    project: Argument.String("project").pipe(Argument.withDescription("Project id or key")),
    detach: Flag.Boolean("detach").pipe(Flag.withDefault(false), Flag.withDescription("Run the supervisor in the background and return once it answers")),
    noOpen: Flag.Boolean("no-open").pipe(Flag.withDefault(false), Flag.withDescription("Print the dashboard URL without opening a browser"))
  },
  Effect.fn("cli.start")(function*({ project, detach: background, noOpen }) {
    const root = dataDir(yield* Host)
    const existing = runningSupervisor(root)
    if (existing !== undefined) {
      const { started, pid } = yield* startThere(existing.socket, project)
      return yield* report(started, pid, !noOpen)
    }
    const { loadConfig } = yield* Effect.promise(() => import("../config/load.ts"))
    const config = yield* loadConfig()
    if (background) {
      const running = yield* detach(root, project)
      const { started, pid } = yield* startThere(running.socket, project)
      // The new supervisor itself started the orchestrator a moment ago.
      return yield* report({ ...started, reused: false }, pid, !noOpen)
    }
    const [{ supervisorApp }, { SessionManager }, { ensureToken }] = yield* Effect.promise(() =>
      Promise.all([import("../../actors/app.ts"), import("../sessions/SessionManager.ts"), import("../dashboard/token.ts")])
    )
    const shutdown = yield* Deferred.make<void>()
    const token = ensureToken(root)
    const dashboardUrl = makeDashboardUrl(config, token)
    yield* Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(supervisorApp(config, { root, cliPath: cliPath(), version: VERSION, shutdown, token, dashboardUrl }))
      const manager = yield* SessionManager.use(Effect.succeed).pipe(Effect.provide(context))
      const { record, reused } = yield* manager.orchestrate(project, cliPath())
      yield* report({ project, orchestratorSessionId: record.sessionId, reused, dashboardUrl }, process.pid, !noOpen)
      yield* Console.log("Ctrl-C (or `orch stop`) stops the supervisor; agent sessions keep running.")
      yield* Deferred.await(shutdown)
    }))
  })
).pipe(Command.withDescription("Start the supervisor and the project's orchestrator session"))

export const stop = Command.make(
  "stop",
  { killSessions: Flag.Boolean("kill-sessions").pipe(Flag.withDefault(false), Flag.withDescription("Also kill every session (unsaved work is rescued first)")) },
  Effect.fn("cli.stop")(function*({ killSessions }) {
    const root = dataDir(yield* Host)
    const running = runningSupervisor(root)
    if (running === undefined) return yield* Console.log("No supervisor is running.")
    const { supervisorClient } = yield* Effect.promise(loadClient)
    const stopped = yield* Effect.scoped(Effect.flatMap(supervisorClient(running.socket), (client) => client.Stop({ killSessions })))
    yield* Effect.suspend(() => (runningSupervisor(root) === undefined ? Effect.void : Effect.fail("running"))).pipe(
      Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 200 }),
      Effect.mapError(() => new SupervisorUnavailable({ reason: `the supervisor (pid ${running.pid}) did not stop within 10 s` }))
    )
    for (const killed of stopped.killed) yield* Console.log(`killed ${killed.sessionId}${rescueNote(killed)}`)
    for (const failed of stopped.failed) yield* Console.error(`orch: ${failed.sessionId} was not killed: ${failed.reason}`)
    yield* Console.log(`supervisor stopped (pid ${running.pid})${killSessions ? `; ${stopped.killed.length} session(s) killed` : "; sessions keep running"}`)
    if (stopped.failed.length > 0) return yield* new SupervisorUnavailable({ reason: `${stopped.failed.length} session(s) could not be killed; see above` })
  })
).pipe(Command.withDescription("Stop the supervisor; agent sessions keep running unless --kill-sessions"))
