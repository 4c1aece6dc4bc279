/**
 * Where the session commands run: through the supervisor when one is running (it is the one writer of session
 * truth, and the CLI then loads no config at all), else in this process with the SessionManager.
 */
import * as Effect from "effect/Effect"
import { Host } from "../config/host.ts"
import { loadConfig } from "../config/load.ts"
import { SessionManager } from "../sessions/SessionManager.ts"
import type { OpError, SessionOps } from "../sessions/SessionOps.ts"
import { dataDir } from "../store/paths.ts"
import { runningSupervisor } from "../store/supervisor-file.ts"

export const withSessions = <A>(f: (sessions: SessionOps) => Effect.Effect<A, OpError>) =>
  Effect.gen(function*() {
    const supervisor = runningSupervisor(dataDir(yield* Host))
    if (supervisor !== undefined) {
      const { remoteSessions } = yield* Effect.promise(() => import("../ipc/client.ts"))
      return yield* Effect.scoped(Effect.flatMap(remoteSessions(supervisor.socket), f))
    }
    return yield* withLocalSessions(f)
  })

/** Always in this process (read-only probes, and the supervisor's own use). */
export const withLocalSessions = <A, E>(f: (sessions: SessionManager["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const config = yield* loadConfig()
    const sessions = yield* SessionManager.use(Effect.succeed).pipe(Effect.provide(SessionManager.layer(config)))
    return yield* f(sessions)
  })
