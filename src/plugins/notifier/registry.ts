/**
 * The notifiers a config names: every entry of `notifiers`, every name in `notificationRouting`, and `hosted`.
 * A name is an entry of `notifiers` (whose `plugin` says what it is) or a built-in used without settings.
 */
import * as Effect from "effect/Effect"
import type { ChildProcessSpawner } from "effect/process"
import type { NotifierConfig, OrchestratorConfig } from "../../config/schema.ts"
import type { Notification, NotificationAction } from "../../domain/notification.ts"
import type { InboxShape } from "../../store/Inbox.ts"
import { callPlugin, type LoadedPlugin, loadPlugin, type PluginLoadError } from "../loader.ts"
import { makeChatNotifier } from "./chat.ts"
import { makeDesktopNotifier } from "./desktop.ts"
import { makeEmailNotifier } from "./email.ts"
import { makeHostedNotifier } from "./hosted.ts"
import { NotifierConfigError, NotifierError, type NotifierShape } from "./Notifier.ts"
import { makeWebhookNotifier } from "./webhook.ts"

export const BUILTIN_NOTIFIERS = ["hosted", "desktop", "chat", "webhook", "email"] as const

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

const makeOne = (
  config: OrchestratorConfig,
  name: string,
  inbox: InboxShape
): Effect.Effect<NotifierShape, NotifierConfigError | PluginLoadError, ChildProcessSpawner.ChildProcessSpawner> => {
  const entry: NotifierConfig = config.notifiers[name] ?? { plugin: name }
  const module = entry.package !== undefined || entry.path !== undefined ? entry : config.plugins[entry.plugin]
  if (module !== undefined) {
    return loadPlugin(module, { slot: "notifier", name: entry.plugin, configFile: config.configPath }, entry).pipe(
      Effect.map((plugin) => notifierFromPlugin(name, plugin))
    )
  }
  switch (entry.plugin) {
    case "hosted":
      return makeHostedNotifier(name, entry, inbox)
    case "desktop":
      return makeDesktopNotifier(name)
    case "webhook":
      return makeWebhookNotifier(name, entry)
    case "chat":
      return makeChatNotifier(name, entry)
    case "email":
      return makeEmailNotifier(name, entry)
    default:
      return Effect.fail(
        new NotifierConfigError({
          notifier: name,
          reason: `unknown notifier plugin "${entry.plugin}" (built-in: ${BUILTIN_NOTIFIERS.join(", ")}; or give a package or path)`
        })
      )
  }
}

/** Every notifier the config uses, by name. Fails on the first one that cannot be created. */
export const buildNotifiers = (config: OrchestratorConfig, inbox: InboxShape) => {
  const names = new Set<string>(["hosted", ...Object.keys(config.notifiers), ...Object.values(config.notificationRouting).flat()])
  return Effect.forEach([...names], (name) => Effect.map(makeOne(config, name, inbox), (notifier) => [name, notifier] as const)).pipe(
    Effect.map((entries): ReadonlyMap<string, NotifierShape> => new Map(entries))
  )
}
