/** What the session commands run with: the loaded config and the SessionManager built on it. */
import * as Effect from "effect/Effect"
import { loadConfig } from "../config/load.ts"
import { SessionManager } from "../sessions/SessionManager.ts"

/** Loads the config, then runs `f` with the SessionManager. */
export const withSessions = <A, E>(f: (sessions: SessionManager["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const config = yield* loadConfig()
    const sessions = yield* SessionManager.use(Effect.succeed).pipe(Effect.provide(SessionManager.layer(config)))
    return yield* f(sessions)
  })
