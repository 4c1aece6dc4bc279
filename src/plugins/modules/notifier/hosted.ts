/**
 * The `hosted` notifier as a plugin module (`orch/plugins/notifier/hosted`): each notification goes into orch's
 * inbox (`notifications.jsonl` in `$ORCH_HOME`, else `~/.orchestrator/`), which the dashboard and
 * `orch notifications` show; with `url` (an ntfy topic) it is also pushed there. `create` checks `url` and `token`.
 */
import * as Effect from "effect/Effect"
import { Host } from "../../../config/host.ts"
import { makeInbox } from "../../../store/Inbox.ts"
import { dataDir } from "../../../store/paths.ts"
import { VERSION } from "../../../version.ts"
import { createNow } from "../../components/create.ts"
import { notifierComponent } from "../../components/notifier.ts"
import type { PluginManifest } from "../../contract/common.ts"
import type { BuiltinNotifier } from "../../contract/notifier.ts"
import { makeHostedNotifier } from "../../notifier/hosted.ts"

export type { BuiltinNotifier, NotificationInput } from "../../contract/notifier.ts"

export interface HostedConfig {
  /** An ntfy-compatible topic URL (e.g. https://ntfy.sh/mytopic) to push each notification to as well. */
  readonly url?: string
  /** An ntfy access token, sent as a Bearer token. */
  readonly token?: string
}

export const manifest: PluginManifest<"notifier"> = {
  name: "hosted",
  slot: "notifier",
  description: "Keeps notifications in orch's inbox (dashboard, orch notifications); optionally pushes them to ntfy",
  version: VERSION
}

export const create = (config: HostedConfig = {}): BuiltinNotifier =>
  notifierComponent(
    createNow(Effect.flatMap(Host, (host) => makeHostedNotifier(manifest.name, { ...config, plugin: manifest.name }, makeInbox(dataDir(host)))))
  )
