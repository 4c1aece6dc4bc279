/**
 * orch composed from a config, the one way there is: the store and the event log, the notifiers and their router,
 * each project's plugins (ProjectPlugins), the SessionManager, the Supervisor with its loops, and the config file's
 * watch when the config came from a file. A program's own Layers (src/plugins/layers.ts) fill any slot, for every
 * project or under the names a config uses. `orch start` is this with none (actors/app.ts adds its socket and
 * dashboard); `orch/effect` exports it as `Orch.layer`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Host, type HostShape } from "../src/config/host.ts"
import type { OrchestratorConfig } from "../src/config/schema.ts"
import { watchConfigFile } from "../src/config/watch.ts"
import { closeLayers, PluginLayers, type PluginLayersSpec, unusedRegistrations } from "../src/plugins/layers.ts"
import { buildNotifiers } from "../src/plugins/notifier/registry.ts"
import { ProjectPlugins } from "../src/plugins/ProjectPlugins.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { makeInbox } from "../src/store/Inbox.ts"
import { dataDir } from "../src/store/paths.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { followConfigFile } from "./config-reload.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { Supervisor } from "./supervisor.ts"

/** What a program's own Layers may use: the platform's services, which the composition provides. */
export type PlatformServices = NodeServices.NodeServices

/** A program's own Layers: `replace` a slot for every project (every notifier), or `register` them by name. */
export type OrchOptions = PluginLayersSpec<PlatformServices>

/**
 * The program's Layers, closed over the platform's services; notifiers' are built in this Layer's scope. One
 * registered under a name the config does not use is said (a warning in the log), not an error: a reload may name it.
 */
const pluginLayers = (config: OrchestratorConfig, options: OrchOptions) =>
  Layer.effect(
    PluginLayers,
    Effect.gen(function*() {
      for (const line of unusedRegistrations(config, options)) yield* Effect.logWarning(line)
      const platform = yield* Effect.context<PlatformServices>()
      return closeLayers(options, platform, yield* Effect.scope)
    })
  )

const composed = (config: OrchestratorConfig, host: HostShape) => {
  const root = dataDir(host)
  const inbox = makeInbox(root)
  const router = Layer.unwrap(Effect.map(buildNotifiers(config, inbox), (notifiers) => NotifierRouter.layer(notifiers, config.notificationRouting)))
  // The config file it was loaded from is followed for changes (a config made in code has none).
  const followed = config.configPath === undefined
    ? Layer.empty
    : Layer.effectDiscard(followConfigFile({ root, file: config.configPath, inbox, changes: watchConfigFile(config.configPath) }))
  // The projects' plugins, shared by the procedures and the actors; this process owns the `process` runtime's
  // terminals, which end when the supervisor stops.
  return followed.pipe(Layer.provideMerge(Supervisor.layer.pipe(
    Layer.provideMerge(SessionManager.layerNoDeps(config)),
    Layer.provideMerge(Layer.mergeAll(router, ProjectPlugins.layer({ supervisor: true }))),
    Layer.provideMerge(Layer.mergeAll(SessionStore.layer, EventLog.layer))
  )))
}

/**
 * The running supervisor of `config`, with the SessionManager and the stores it uses, for as long as the Layer lives.
 * Its state is in the Host's data directory (`~/.orchestrator`, or `ORCH_HOME`).
 */
export const orchLayer = (config: OrchestratorConfig, options: OrchOptions = {}) =>
  Layer.unwrap(Effect.map(Host, (host: HostShape) => composed(config, host))).pipe(
    Layer.provide(pluginLayers(config, options)),
    Layer.provide(NodeServices.layer)
  )
