/**
 * A config reload's part in the supervisor (config-reload.ts follows the file). First half: ProjectPlugins builds
 * the plugins of the projects the change adds or changes; when one cannot be built, nothing has changed. Its result,
 * the second half, cannot fail: it puts the new config in force (the new plugins replace the old, which close; the
 * config source changes) and stops the actors of sessions whose project is gone, whose agents keep running unwatched.
 * Then the live sessions of the projects it added get actors. No session or other actor is touched.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ConfigChange } from "../src/config/change.ts"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import { ProjectPlugins } from "../src/plugins/ProjectPlugins.ts"
import type { PluginBuildError } from "../src/plugins/registry.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { SessionActors } from "./session-actors.ts"
import { WatchedProjects } from "./watched-projects.ts"

export interface ProjectReloadShape {
  /** Builds what `change` needs; answers its commit, which answers the records of the sessions no longer watched. */
  readonly prepare: (change: ConfigChange) => Effect.Effect<Effect.Effect<ReadonlyArray<SessionRecord>>, PluginBuildError>
  /** After a reload: the live sessions of the projects it added get actors. Answers their records. */
  readonly adoptProjects: (projectIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<SessionRecord>>
}

export class ProjectReload extends Context.Service<ProjectReload, ProjectReloadShape>()("orch/actors/ProjectReload") {
  static readonly layer = Layer.effect(
    ProjectReload,
    Effect.gen(function*() {
      const plugins = yield* ProjectPlugins
      const configs = yield* ConfigSource
      const store = yield* SessionStore
      const projects = yield* WatchedProjects
      const actors = yield* SessionActors

      const prepare = Effect.fn("ProjectReload.prepare")(function*(change: ConfigChange) {
        const prepared = yield* plugins.prepare(change)
        return Effect.gen(function*() {
          yield* prepared.commit
          yield* projects.swap(change.removed, prepared.built)
          yield* configs.replace(change.next)
          const unwatched = actors.entries().map((entry) => entry.record).filter((record) => projects.get(record.projectId) === undefined)
          for (const record of unwatched) yield* actors.stop(record.sessionId)
          return unwatched
        }).pipe(Effect.uninterruptible)
      })

      const adoptProjects = Effect.fn("ProjectReload.adoptProjects")(function*(projectIds: ReadonlyArray<string>) {
        if (projectIds.length === 0) return []
        const { records } = yield* store.list
        const live = records.filter((record) => projectIds.includes(record.projectId) && projects.isLive(record))
        for (const record of live) yield* actors.start(record)
        return live
      })

      return ProjectReload.of({ prepare, adoptProjects })
    })
  )
}
