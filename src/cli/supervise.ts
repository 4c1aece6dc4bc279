/**
 * Becoming the supervisor (`orch start` in the foreground, and the child of `--detach`). Taking over happens
 * under the machine-wide `supervisor` lock: the one that holds it asks again whether a supervisor answers (one
 * may have started while it waited), and if none does, removes what a dead one left and starts listening before
 * it lets go. So of two `orch start`s at once, one supervises and the other joins it, and each says which.
 */
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { Shutdown } from "../../actors/app.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { dashboardUrl as makeDashboardUrl } from "../dashboard/urls.ts"
import { answered, type SupervisorClient } from "../ipc/client.ts"
import { connectSupervisor, removeLeftovers, unresponsive } from "../ipc/liveness.ts"
import { withLock } from "../store/lock.ts"
import { storePaths } from "../store/paths.ts"
import { VERSION } from "../version.ts"
import { sayServedConfig } from "./acting-config.ts"
import type { Ready } from "./detach.ts"
import { supervisorLoggerLayer } from "./logging.ts"
import { keepYoungGenerationSmall } from "./young-generation.ts"

/**
 * Asks the running supervisor (pid `pid`) to start the project's orchestrator (no project: its config's only one),
 * or to say it already runs.
 */
export const joinSupervisor = (client: SupervisorClient, pid: number, project: string | undefined) =>
  Effect.map(answered(client.Start(project === undefined ? {} : { project })), (started): Ready => ({ _tag: "Ready", ...started, pid, joined: true }))

/** What the supervisor says as it stops: how it was stopped, and what became of the agent sessions. */
export const stoppedLine = (stopped: Shutdown | undefined): string => {
  if (stopped === undefined || !stopped.killedSessions) {
    return `supervisor stopped${stopped === undefined ? "" : " (orch stop)"}; agent sessions keep running (a new \`orch start\` adopts them)`
  }
  const kept = stopped.notKilled > 0 ? `; ${stopped.notKilled} could not be killed and keep running (see above)` : ""
  return `supervisor stopped (orch stop --kill-sessions); ${stopped.killed} session(s) killed first${kept}`
}

/**
 * Joins the supervisor that answers, or becomes it: builds the supervisor here, starts the project's
 * orchestrator, calls `onReady` with what was done, and runs until stopped.
 */
export const supervise = Effect.fn("cli.start.supervise")(function*<E>(
  root: string,
  config: OrchestratorConfig,
  project: string,
  cliPath: string,
  onReady: (ready: Ready) => Effect.Effect<void, E>,
  how: { readonly detached: boolean } = { detached: false }
) {
  const [{ supervisorApp }, { SessionManager }, { Supervisor }, { ensureToken }] = yield* Effect.promise(() =>
    Promise.all([import("../../actors/app.ts"), import("../sessions/SessionManager.ts"), import("../../actors/supervisor.ts"), import("../dashboard/token.ts")])
  )
  yield* Effect.scoped(Effect.gen(function*() {
    const shutdown = yield* Deferred.make<Shutdown>()
    // Said last, once everything the supervisor ran has closed: by `orch stop`, Ctrl-C or another signal.
    const owner = yield* Ref.make(false)
    const stoppedBy = yield* Ref.make<Shutdown | undefined>(undefined)
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Effect.all([Ref.get(owner), Ref.get(stoppedBy)]), ([owned, stopped]) => (owned ? Console.log(stoppedLine(stopped)) : Effect.void))
    )
    const took = yield* withLock(storePaths(root).locks, "supervisor")(Effect.gen(function*() {
      const found = yield* connectSupervisor(root)
      if (found._tag === "Running") {
        yield* sayServedConfig(found.info)
        return { _tag: "Joined" as const, ready: yield* joinSupervisor(found.client, found.info.pid, project) }
      }
      if (found._tag === "Unresponsive") return yield* unresponsive(found)
      yield* removeLeftovers(root, found.leftovers)
      yield* Effect.sync(keepYoungGenerationSmall)
      const token = ensureToken(root)
      const dashboardUrl = makeDashboardUrl(config, token)
      const app = supervisorApp(config, { root, cliPath, version: VERSION, shutdown, token, dashboardUrl }).pipe(Layer.provide(supervisorLoggerLayer(root)))
      return { _tag: "Own" as const, context: yield* Layer.build(app), dashboardUrl }
    }))
    if (took._tag === "Joined") return yield* onReady(took.ready)
    const [manager, supervisor] = yield* Effect.all([SessionManager.use(Effect.succeed), Supervisor.use(Effect.succeed)]).pipe(Effect.provide(took.context))
    const { record, reused } = yield* manager.orchestrate(project, cliPath)
    const recovered = yield* supervisor.recovered
    yield* onReady({
      _tag: "Ready",
      project,
      orchestratorSessionId: record.sessionId,
      reused,
      dashboardUrl: took.dashboardUrl,
      pid: process.pid,
      joined: false,
      ...(recovered.length > 0 ? { recovered } : {})
    })
    yield* Console.log(
      `${
        how.detached ? "`orch stop`" : "Ctrl-C (or `orch stop`)"
      } stops the supervisor; agent sessions keep running unless it is \`orch stop --kill-sessions\`.`
    )
    yield* Ref.set(owner, true)
    yield* Ref.set(stoppedBy, yield* Deferred.await(shutdown))
  }))
})
