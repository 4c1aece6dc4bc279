/**
 * The `webhook` notifier as a plugin module (`orch/plugins/notifier/webhook`). `create` checks `url` and throws a
 * NotifierConfigError when it is not an http or https URL. Each method POSTs one JSON body (see
 * docs/plugins.md#webhook-bodies) with `headers`, retrying 429, 5xx and network errors.
 */
import { VERSION } from "../../../version.ts"
import { createNow } from "../../components/create.ts"
import { notifierComponent } from "../../components/notifier.ts"
import type { PluginManifest } from "../../contract/common.ts"
import type { BuiltinNotifier } from "../../contract/notifier.ts"
import { makeWebhookNotifier } from "../../notifier/webhook.ts"

export type { BuiltinNotifier, NotificationInput } from "../../contract/notifier.ts"

export interface WebhookConfig {
  /** The http or https URL to POST to. */
  readonly url: string
  /** Sent with every request; values that are not strings are left out. */
  readonly headers?: Readonly<Record<string, unknown>>
  /** Retries after the first attempt (default 2; 0 for none). */
  readonly retries?: number
  /** The delay before the first retry, doubled for each next one (default 1000). */
  readonly retryDelayMs?: number
}

export const manifest: PluginManifest<"notifier"> = {
  name: "webhook",
  slot: "notifier",
  description: "POSTs JSON to any HTTP(S) endpoint, with headers and retries",
  version: VERSION
}

export const create = (config: WebhookConfig): BuiltinNotifier =>
  notifierComponent(createNow(makeWebhookNotifier(manifest.name, { ...config, plugin: manifest.name })))
