/**
 * The `chat` notifier as a plugin module (`orch/plugins/notifier/chat`): a Slack-compatible incoming webhook.
 * `create` checks `webhookUrl` (or `webhook`) and throws a NotifierConfigError when it is not an http(s) URL.
 */
import { VERSION } from "../../../version.ts"
import { createNow } from "../../components/create.ts"
import { notifierComponent } from "../../components/notifier.ts"
import type { PluginManifest } from "../../contract/common.ts"
import type { BuiltinNotifier } from "../../contract/notifier.ts"
import { makeChatNotifier } from "../../notifier/chat.ts"

export type { BuiltinNotifier, NotificationInput } from "../../contract/notifier.ts"

export interface ChatConfig {
  /** The incoming webhook's URL (`webhook` is read when `webhookUrl` is absent). */
  readonly webhookUrl?: string
  readonly webhook?: string
  /** The channel to post in, where the webhook allows choosing. */
  readonly channel?: string
  readonly retries?: number
  readonly retryDelayMs?: number
}

export const manifest: PluginManifest<"notifier"> = {
  name: "chat",
  slot: "notifier",
  description: "Posts Block Kit messages to a Slack-compatible incoming webhook",
  version: VERSION
}

export const create = (config: ChatConfig): BuiltinNotifier =>
  notifierComponent(createNow(makeChatNotifier(manifest.name, { ...config, plugin: manifest.name })))
