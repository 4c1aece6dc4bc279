/**
 * The `email` notifier as a plugin module (`orch/plugins/notifier/email`): one plain-text mail per notification
 * through SMTP. `create` checks `smtp`, `from` and `to` and throws a NotifierConfigError naming what is wrong.
 */
import { VERSION } from "../../../version.ts"
import { createNow } from "../../components/create.ts"
import { notifierComponent } from "../../components/notifier.ts"
import type { PluginManifest } from "../../contract/common.ts"
import type { BuiltinNotifier } from "../../contract/notifier.ts"
import { makeEmailNotifier } from "../../notifier/email.ts"

export type { BuiltinNotifier, NotificationInput } from "../../contract/notifier.ts"

export interface EmailConfig {
  /** `smtp://USER:PASSWORD@HOST:PORT`, or `smtps://` for TLS from the first byte. */
  readonly smtp: string
  readonly from: string
  readonly to: string | ReadonlyArray<string>
}

export const manifest: PluginManifest<"notifier"> = {
  name: "email",
  slot: "notifier",
  description: "Sends each notification as a plain-text mail through SMTP",
  version: VERSION
}

export const create = (config: EmailConfig): BuiltinNotifier =>
  notifierComponent(createNow(makeEmailNotifier(manifest.name, { ...config, plugin: manifest.name })))
