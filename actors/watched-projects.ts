/**
 * The projects the supervisor watches now, each with its plugins (ProjectPlugins builds and owns them): at start
 * those of the config it runs on; a reload swaps them (project-reload.ts). Read at the moment of each decision,
 * never kept.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { isLive, type SessionRecord } from "../src/domain/session.ts"
import { ProjectPlugins, type ProjectSlots } from "../src/plugins/ProjectPlugins.ts"

export interface WatchedProjectsShape {
  /** The project's plugins, when it is watched. */
  readonly get: (projectId: string) => ProjectSlots | undefined
  readonly all: () => ReadonlyArray<ProjectSlots>
  /** A live session of a watched project: one the supervisor keeps an actor for. */
  readonly isLive: (record: SessionRecord) => boolean
  /** A reload's swap: the `removed` projects are no longer watched; the `built` ones are, with these plugins. */
  readonly swap: (removed: ReadonlyArray<string>, built: ReadonlyArray<ProjectSlots>) => Effect.Effect<void>
}

export class WatchedProjects extends Context.Service<WatchedProjects, WatchedProjectsShape>()("orch/actors/WatchedProjects") {
  static readonly layer = Layer.effect(
    WatchedProjects,
    Effect.gen(function*() {
      const configs = yield* ConfigSource
      const plugins = yield* ProjectPlugins
      const projects = new Map<string, ProjectSlots>()
      const initial = yield* configs.current
      for (const project of Object.values(initial.projects)) projects.set(project.id, yield* plugins.of(initial, project))
      return WatchedProjects.of({
        get: (projectId) => projects.get(projectId),
        all: () => [...projects.values()],
        isLive: (record) => isLive(record) && projects.has(record.projectId),
        swap: (removed, built) =>
          Effect.sync(() => {
            for (const id of removed) projects.delete(id)
            for (const slots of built) projects.set(slots.project.id, slots)
          })
      })
    })
  )
}
