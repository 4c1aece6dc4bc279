/**
 * The `desktop` notifier as a plugin module (`orch/plugins/notifier/desktop`): `notify-send` on Linux,
 * `osascript` on macOS; where neither exists, or the command fails, the call rejects saying why. It takes no settings.
 */
import { VERSION } from "../../../version.ts"
import { createNow } from "../../components/create.ts"
import { notifierComponent } from "../../components/notifier.ts"
import type { PluginManifest } from "../../contract/common.ts"
import type { BuiltinNotifier } from "../../contract/notifier.ts"
import { makeDesktopNotifier } from "../../notifier/desktop.ts"

export type { BuiltinNotifier, NotificationInput } from "../../contract/notifier.ts"

export const manifest: PluginManifest<"notifier"> = {
  name: "desktop",
  slot: "notifier",
  description: "Shows a desktop notification (notify-send on Linux, osascript on macOS)",
  version: VERSION
}

export const create = (_config?: unknown): BuiltinNotifier => notifierComponent(createNow(makeDesktopNotifier(manifest.name)))
