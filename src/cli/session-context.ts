/**
 * Where the session commands run: through the supervisor when one answers (it is the one writer of session
 * truth, and the CLI then loads no config at all: it says so when the supervisor's config is not the one this
 * directory gives), else in this process with the SessionManager. A supervisor
 * that is gone (killed, a zombie, only its files left) is no supervisor; one that holds its socket but does not
 * answer stops the command, so nothing is done twice.
 */
import * as Effect from "effect/Effect"
import type { ChildProcessSpawner } from "effect/process"
import type { ConfigError } from "../config/errors.ts"
import { Host } from "../config/host.ts"
import { loadConfig } from "../config/load.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { getDefaultConfig } from "../config/validate.ts"
import { connectSupervisor, unresponsive } from "../ipc/liveness.ts"
import { SessionManager } from "../sessions/SessionManager.ts"
import type { OpError, SessionOps } from "../sessions/SessionOps.ts"
import { dataDir } from "../store/paths.ts"
import { sayServedConfig } from "./acting-config.ts"
import { configForSession } from "./session-config.ts"

/** Where a command's procedures run: in the supervisor (over its socket), or here in this process. */
export type SessionsWhere = "supervisor" | "here"

/** Runs `f` with the supervisor's procedures when one answers, else with `local`. */
const viaSupervisorElse = <A, E, R>(f: (sessions: SessionOps, where: SessionsWhere) => Effect.Effect<A, OpError>, local: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const found = yield* connectSupervisor(dataDir(yield* Host))
    switch (found._tag) {
      case "Running": {
        const { remoteSessions } = yield* Effect.promise(() => import("../ipc/client.ts"))
        yield* sayServedConfig(found.info)
        return yield* f(remoteSessions(found.client), "supervisor")
      }
      case "Unresponsive":
        return yield* unresponsive(found)
      case "NotRunning":
        return yield* local
    }
  }))

/** The project a command acts on (spawn, batch-spawn, queue add): without a supervisor, its plugins are checked first. */
export interface Acting {
  readonly project: string
}

export const withSessions = <A>(f: (sessions: SessionOps, where: SessionsWhere) => Effect.Effect<A, OpError>, acting?: Acting) =>
  viaSupervisorElse(f, withLocalSessions((sessions) => f(sessions, "here"), acting))

/** For a command that names a session: without a supervisor, under the config its record points to (from any directory). */
export const withSessionsFor = <A>(sessionId: string, f: (sessions: SessionOps) => Effect.Effect<A, OpError>) =>
  viaSupervisorElse(f, Effect.flatMap(configForSession(sessionId), (config) => withSessionsUnder(config, f)))

/** Like withSessions, but with no config found it runs under the defaults (no projects): for commands that need none. */
export const withSessionsAnywhere = <A>(f: (sessions: SessionOps) => Effect.Effect<A, OpError>) =>
  viaSupervisorElse(
    f,
    Effect.gen(function*() {
      const { env } = yield* Host
      // ORCH_CONFIG_PATH naming no file is still an error.
      const pinned = env.ORCH_CONFIG_PATH !== undefined && env.ORCH_CONFIG_PATH !== ""
      const config = yield* loadConfig().pipe(Effect.catchTag("ConfigNotFoundError", (error) => (pinned ? Effect.fail(error) : getDefaultConfig())))
      return yield* withSessionsUnder(config, f)
    })
  )

/**
 * The config found here; for a command acting on a project, checked as `orch config validate` checks it, but only that
 * project's plugins (a spawn imports no module another project names). The check's modules (every built-in plugin's
 * manifest, undici among them) load only for such a command: `queue ls` and `session ls` print nothing of them.
 */
const actingConfig = (acting: Acting | undefined): Effect.Effect<OrchestratorConfig, ConfigError, ChildProcessSpawner.ChildProcessSpawner> =>
  acting === undefined
    ? loadConfig()
    : Effect.flatMap(
      Effect.promise(() => import("../plugins/config-check.ts")),
      ({ loadCheckedConfig }) => Effect.map(loadCheckedConfig(undefined, { projects: [acting.project] }), (loaded) => loaded.config)
    )

/**
 * In this process, for a command that reads every session and needs no config to (`session ls`, as `orch status`):
 * under the config found, else under the defaults (no projects). `unusable` is the config's error when it has one
 * (a missing file is none, unless ORCH_CONFIG_PATH names it).
 */
export const withLocalSessionsAnywhere = <A, E>(f: (sessions: SessionManager["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const { env } = yield* Host
    const pinned = env.ORCH_CONFIG_PATH !== undefined && env.ORCH_CONFIG_PATH !== ""
    const loaded = yield* Effect.result(loadConfig())
    if (loaded._tag === "Success") return { value: yield* withSessionsUnder(loaded.success, f) }
    const unusable: ConfigError | undefined = loaded.failure._tag === "ConfigNotFoundError" && !pinned ? undefined : loaded.failure
    return { value: yield* withSessionsUnder(yield* getDefaultConfig(), f), ...(unusable !== undefined ? { unusable } : {}) }
  })

/** Always in this process (read-only probes, and the supervisor's own use). */
export const withLocalSessions = <A, E>(f: (sessions: SessionManager["Service"]) => Effect.Effect<A, E>, acting?: Acting) =>
  Effect.flatMap(actingConfig(acting), (config) => withSessionsUnder(config, f))

/** The procedures run while the layer lives: it owns the project plugins they build (once each). */
const withSessionsUnder = <A, E>(config: OrchestratorConfig, f: (sessions: SessionManager["Service"]) => Effect.Effect<A, E>) =>
  SessionManager.use(f).pipe(Effect.provide(SessionManager.layer(config)))
