/**
 * The notifiers a config names: every entry of `notifiers`, every name in `notificationRouting`, and `hosted`.
 * A name is an entry of `notifiers` (whose `plugin` says what it is) or a built-in used without settings.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChildProcessSpawner } from "effect/process"
import type { NotifierConfig, OrchestratorConfig } from "../../config/schema.ts"
import type { Notification, NotificationAction } from "../../domain/notification.ts"
import type { InboxShape } from "../../store/Inbox.ts"
import { choosePlugin, unknownPluginMessage } from "../choice.ts"
import { asFailure, failureReason, fitsShape, hasLayer, layerOrigin, PluginLayers, type PluginLayersShape, slotLayerFor } from "../layers.ts"
import { callPlugin, importPlugin, type LoadedPlugin, loadPlugin, type PluginLoadError } from "../loader.ts"
import { makeChatNotifier } from "./chat.ts"
import { makeDesktopNotifier } from "./desktop.ts"
import { makeEmailNotifier } from "./email.ts"
import { makeHostedNotifier } from "./hosted.ts"
import { Notifier, NotifierConfigError, NotifierError, type NotifierShape } from "./Notifier.ts"
import { makeWebhookNotifier } from "./webhook.ts"

/** A plugin module's notifier component through the slot interface. */
export const notifierFromPlugin = (name: string, { component }: LoadedPlugin): NotifierShape => {
  const call = (method: string, ...args: ReadonlyArray<unknown>) =>
    Effect.asVoid(callPlugin(name, component, method, ...args)).pipe(
      Effect.mapError((error) => new NotifierError({ notifier: name, reason: error.reason }))
    )
  return {
    name,
    notify: (notification: Notification) => call("notify", notification),
    ...(typeof component.notifyWithActions === "function"
      ? { notifyWithActions: (n: Notification, actions: ReadonlyArray<NotificationAction>) => call("notifyWithActions", n, actions) }
      : {}),
    ...(typeof component.post === "function" ? { post: (message: string, context: object) => call("post", message, context) } : {})
  }
}

/** The notifier called `name`: its entry under `notifiers`, else a built-in used without settings. */
const entryOf = (config: OrchestratorConfig, name: string): NotifierConfig => config.notifiers[name] ?? { plugin: name }

const choiceOf = (config: OrchestratorConfig, name: string) => {
  const entry = entryOf(config, name)
  return { entry, choice: choosePlugin(config, "notifier", entry.plugin, { settings: entry, where: ["notifiers", name] }) }
}

const makeBuiltin = (
  name: string,
  entry: NotifierConfig,
  inbox: InboxShape
): Effect.Effect<NotifierShape, NotifierConfigError, ChildProcessSpawner.ChildProcessSpawner> => {
  switch (entry.plugin) {
    case "hosted":
      return makeHostedNotifier(name, entry, inbox)
    case "desktop":
      return makeDesktopNotifier(name)
    case "webhook":
      return makeWebhookNotifier(name, entry)
    case "chat":
      return makeChatNotifier(name, entry)
    default: // email: choice.ts knows no other built-in notifier
      return makeEmailNotifier(name, entry)
  }
}

/**
 * The program's own Layer for notifier `name` (`orch/effect`), when it gave one for every notifier or registered one
 * as the plugin the entry names; built in the scope the Layers came with. It answers to `name`, as any notifier does.
 */
const fromLayer = (
  layers: PluginLayersShape,
  name: string,
  entry: NotifierConfig
): Effect.Effect<NotifierShape, NotifierConfigError> | undefined => {
  const found = slotLayerFor(layers, "notifier", entry.plugin, { name, settings: entry })
  if (found === undefined) return undefined
  const scope = layers.scope
  if (scope === undefined) return Effect.die(new Error("orch: PluginLayers with Layers must come with the scope they are built in"))
  return Layer.buildWithScope(found.layer, scope).pipe(
    asFailure,
    Effect.flatMap((context) => fitsShape("notifier", { ...Context.get(context, Notifier), name } satisfies NotifierShape)),
    Effect.mapError((error) =>
      new NotifierConfigError({ notifier: name, reason: `${layerOrigin("notifier", found.registeredAs)} could not be built: ${failureReason(error)}` })
    )
  )
}

const makeOne = (
  config: OrchestratorConfig,
  name: string,
  inbox: InboxShape,
  layers: PluginLayersShape
): Effect.Effect<NotifierShape, NotifierConfigError | PluginLoadError, ChildProcessSpawner.ChildProcessSpawner> => {
  const { entry, choice } = choiceOf(config, name)
  const own = fromLayer(layers, name, entry)
  if (own !== undefined) return own
  switch (choice._tag) {
    case "Module":
      return loadPlugin(choice.source, { slot: "notifier", name: entry.plugin, configFile: config.configPath }, entry).pipe(
        Effect.map((plugin) => notifierFromPlugin(name, plugin))
      )
    case "Builtin":
      return makeBuiltin(name, entry, inbox)
    case "Unknown":
      return Effect.fail(new NotifierConfigError({ notifier: name, reason: unknownPluginMessage("notifier", entry.plugin, choice.modules) }))
  }
}

/** Every notifier name the config uses: `hosted`, each entry of `notifiers`, each name in `notificationRouting`. */
const notifierNames = (
  config: OrchestratorConfig
) => [...new Set<string>(["hosted", ...Object.keys(config.notifiers), ...Object.values(config.notificationRouting).flat()])]

/**
 * Every notifier the config uses, by name, a program's own Layers (PluginLayers) first. Fails on the first one that
 * cannot be created.
 */
export const buildNotifiers = (config: OrchestratorConfig, inbox: InboxShape) =>
  Effect.flatMap(
    PluginLayers,
    (layers: PluginLayersShape) =>
      Effect.forEach(notifierNames(config), (name) => Effect.map(makeOne(config, name, inbox, layers), (notifier) => [name, notifier] as const)).pipe(
        Effect.map((entries): ReadonlyMap<string, NotifierShape> => new Map(entries))
      )
  )

/** A notifier that could not be made, at the config path of what is wrong. */
export interface NotifierProblem {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/**
 * Every notifier of the config that cannot be made, each with its problem, as the config check reports them: a
 * built-in is made (it checks its own keys, and nothing is sent), a plugin module only imported and its manifest
 * checked (creating it is for the supervisor).
 */
export const notifierProblems = Effect.fnUntraced(function*(config: OrchestratorConfig, inbox: InboxShape) {
  const problems: Array<NotifierProblem> = []
  const layers = yield* PluginLayers
  for (const name of notifierNames(config)) {
    const { entry, choice } = choiceOf(config, name)
    // A program's own Layer is the program's to check (it is built with the router).
    if (hasLayer(layers, "notifier", entry.plugin)) continue
    switch (choice._tag) {
      // Only an entry of `notifiers` can name an unknown plugin: the routing's names are checked with the file.
      case "Unknown":
        problems.push({ path: ["notifiers", name, "plugin"], message: unknownPluginMessage("notifier", entry.plugin, choice.modules) })
        break
      case "Builtin": {
        const made = yield* Effect.result(makeBuiltin(name, entry, inbox))
        if (made._tag === "Failure") problems.push({ path: ["notifiers", name], message: made.failure.reason })
        break
      }
      case "Module": {
        const imported = yield* Effect.result(importPlugin(choice.source, { slot: "notifier", name: entry.plugin, configFile: config.configPath }))
        if (imported._tag === "Failure") problems.push({ path: choice.where, message: imported.failure.message })
        break
      }
    }
  }
  return problems
})
