/**
 * Becoming the supervisor (`orch start` in the foreground, and the child of `--detach`). Taking over happens
 * under the machine-wide `supervisor` lock: the one that holds it asks again whether a supervisor answers (one
 * may have started while it waited), and if none does, removes what a dead one left and starts listening before
 * it lets go. So of two `orch start`s at once, one supervises and the other joins it.
 */
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
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

/** Asks the running supervisor (pid `pid`) to start the project's orchestrator, or to say it already runs. */
export const joinSupervisor = (client: SupervisorClient, pid: number, project: string) =>
  Effect.map(answered(client.Start({ project })), (started): Ready => ({ _tag: "Ready", ...started, pid }))

/**
 * Joins the supervisor that answers, or becomes it: builds the supervisor here, starts the project's
 * orchestrator, calls `onReady` with what was done, and runs until stopped.
 */
export const supervise = Effect.fn("cli.start.supervise")(function*<E>(
  root: string,
  config: OrchestratorConfig,
  project: string,
  cliPath: string,
  onReady: (ready: Ready) => Effect.Effect<void, E>
) {
  const [{ supervisorApp }, { SessionManager }, { Supervisor }, { ensureToken }] = yield* Effect.promise(() =>
    Promise.all([import("../../actors/app.ts"), import("../sessions/SessionManager.ts"), import("../../actors/supervisor.ts"), import("../dashboard/token.ts")])
  )
  yield* Effect.scoped(Effect.gen(function*() {
    const shutdown = yield* Deferred.make<{ readonly killedSessions: boolean }>()
    // Said last, once everything the supervisor ran has closed: by Ctrl-C, a signal or `orch stop`.
    const owner = yield* Ref.make(false)
    const killed = yield* Ref.make(false)
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Effect.all([Ref.get(owner), Ref.get(killed)]), ([owned, sessionsKilled]) =>
        !owned
          ? Effect.void
          : Console.log(
            sessionsKilled
              ? "supervisor stopped; its sessions were killed first (orch stop --kill-sessions)"
              : "supervisor stopped; agent sessions keep running (a new `orch start` adopts them)"
          ))
    )
    const took = yield* withLock(storePaths(root).locks, "supervisor")(Effect.gen(function*() {
      const found = yield* connectSupervisor(root)
      if (found._tag === "Running") {
        yield* sayServedConfig(found.info)
        return { _tag: "Joined" as const, ready: yield* joinSupervisor(found.client, found.info.pid, project) }
      }
      if (found._tag === "Unresponsive") return yield* unresponsive(found)
      yield* removeLeftovers(root, found.leftovers)
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
      ...(recovered.length > 0 ? { recovered } : {})
    })
    yield* Console.log("Ctrl-C (or `orch stop`) stops the supervisor; agent sessions keep running.")
    yield* Ref.set(owner, true)
    const stopped = yield* Deferred.await(shutdown)
    yield* Ref.set(killed, stopped.killedSessions)
  }))
})
