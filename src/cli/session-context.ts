/**
 * Where the session commands run: through the supervisor when one answers (it is the one writer of session
 * truth, and the CLI then loads no config at all), else in this process with the SessionManager. A supervisor
 * that is gone (killed, a zombie, only its files left) is no supervisor; one that holds its socket but does not
 * answer stops the command, so nothing is done twice.
 */
import * as Effect from "effect/Effect"
import { Host } from "../config/host.ts"
import { loadConfig } from "../config/load.ts"
import { connectSupervisor, unresponsive } from "../ipc/liveness.ts"
import { SessionManager } from "../sessions/SessionManager.ts"
import type { OpError, SessionOps } from "../sessions/SessionOps.ts"
import { dataDir } from "../store/paths.ts"

export const withSessions = <A>(f: (sessions: SessionOps) => Effect.Effect<A, OpError>) =>
  Effect.scoped(Effect.gen(function*() {
    const found = yield* connectSupervisor(dataDir(yield* Host))
    switch (found._tag) {
      case "Running": {
        const { remoteSessions } = yield* Effect.promise(() => import("../ipc/client.ts"))
        return yield* f(remoteSessions(found.client))
      }
      case "Unresponsive":
        return yield* unresponsive(found)
      case "NotRunning":
        return yield* withLocalSessions(f)
    }
  }))

/** Always in this process (read-only probes, and the supervisor's own use). */
export const withLocalSessions = <A, E>(f: (sessions: SessionManager["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const config = yield* loadConfig()
    const sessions = yield* SessionManager.use(Effect.succeed).pipe(Effect.provide(SessionManager.layer(config)))
    return yield* f(sessions)
  })
