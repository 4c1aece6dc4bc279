/**
 * Which configuration a command that names a session (send, attach, session kill|restore|rm) runs under, from any
 * directory: `ORCH_CONFIG_PATH` when set; else the config the search finds when it has the session's project; else
 * the config file the session was spawned under (its record remembers it) while it exists; else the one found.
 */
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { ConfigNotFoundError } from "../config/errors.ts"
import { isFile, searchPlaces } from "../config/find.ts"
import { Host } from "../config/host.ts"
import { loadConfigWithPath } from "../config/load.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import type { SessionRecord } from "../domain/session.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { sayActingConfig } from "./acting-config.ts"

/** The session was spawned under a config file that is no longer there, and no other one knows its project. */
export class SessionConfigGone extends Schema.TaggedError<SessionConfigGone>()("SessionConfigGone", {
  sessionId: Schema.String,
  file: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `session ${this.sessionId} was spawned under ${this.file}, which no longer exists; run the command where its project's config is found, or point ORCH_CONFIG_PATH at it`
  }
}

export interface SessionConfigFacts {
  /** `ORCH_CONFIG_PATH` is set: it wins. */
  readonly fromEnv: boolean
  /** The file the search finds, and whether it has the session's project. */
  readonly found: { readonly path: string; readonly hasProject: boolean } | undefined
  /** The config file the record remembers, and whether it still exists. */
  readonly recorded: { readonly path: string; readonly exists: boolean } | undefined
}

export type SessionConfigChoice =
  | { readonly _tag: "Found" }
  | { readonly _tag: "Recorded"; readonly path: string }
  | { readonly _tag: "RecordedGone"; readonly path: string }
  | { readonly _tag: "NotFound" }

/**
 * The decision, pure, as docs/configuration.md says: the config found here when it has the session's project; the
 * file the session was spawned under only when the one found lacks it (or none is found).
 */
export const chooseSessionConfig = (facts: SessionConfigFacts): SessionConfigChoice => {
  if (facts.fromEnv || facts.found?.hasProject === true) return { _tag: "Found" }
  if (facts.recorded?.exists === true) return facts.found?.path === facts.recorded.path ? { _tag: "Found" } : { _tag: "Recorded", path: facts.recorded.path }
  if (facts.found !== undefined) return { _tag: "Found" }
  return facts.recorded !== undefined ? { _tag: "RecordedGone", path: facts.recorded.path } : { _tag: "NotFound" }
}

const hasProject = (config: OrchestratorConfig, record: SessionRecord) => Object.values(config.projects).some((p) => p.id === record.projectId)

/** The config to run a command on session `sessionId` with; fails with `no session X` for an unknown session. */
export const configForSession = Effect.fn("cli.configForSession")(function*(sessionId: string) {
  const host = yield* Host
  const record = yield* SessionStore.use((store) => store.read(sessionId)).pipe(Effect.provide(SessionStore.layer))
  const fromEnv = host.env.ORCH_CONFIG_PATH !== undefined && host.env.ORCH_CONFIG_PATH !== ""
  const foundPath = fromEnv ? undefined : searchPlaces(host).find(isFile)
  const found = fromEnv || foundPath !== undefined ? yield* loadConfigWithPath() : undefined
  const choice = chooseSessionConfig({
    fromEnv,
    found: found === undefined ? undefined : { path: found.path, hasProject: hasProject(found.config, record) },
    recorded: record.configPath === undefined ? undefined : { path: record.configPath, exists: isFile(record.configPath) }
  })
  switch (choice._tag) {
    case "Found":
      return found?.config ?? (yield* loadConfigWithPath()).config
    case "Recorded":
      yield* sayActingConfig({ _tag: "Session", path: choice.path, sessionId })
      return (yield* loadConfigWithPath(choice.path)).config
    case "RecordedGone":
      return yield* new SessionConfigGone({ sessionId, file: choice.path })
    case "NotFound":
      return yield* new ConfigNotFoundError({ searched: searchPlaces(host) })
  }
})
