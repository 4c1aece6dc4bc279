/**
 * The `repohost` tracker as a plugin module (`orch/plugins/tracker/repohost`): GitHub issues of `repo` through the
 * REST API (`apiUrl`, default https://api.github.com; `token`, else $GITHUB_TOKEN, $GH_TOKEN, `gh auth token`).
 * `create` throws a PluginConfigError when `repo` is not `owner/name`.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Host } from "../../../config/host.ts"
import { ProjectConfig } from "../../../config/schema.ts"
import { VERSION } from "../../../version.ts"
import { createNow, settingsOf } from "../../components/create.ts"
import { type BuiltinTracker, trackerComponent } from "../../components/tracker.ts"
import type { PluginManifest } from "../../contract/common.ts"
import { makeRepohostTracker } from "../../tracker/repohost.ts"

export type { BuiltinTracker } from "../../components/tracker.ts"

const Settings = Schema.StructWithRest(
  Schema.Struct({
    /** The repository whose issues these are: `owner/name`. */
    repo: ProjectConfig.fields.repo,
    apiUrl: Schema.optionalKey(Schema.String),
    token: Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type RepohostTrackerConfig = typeof Settings.Encoded

export const manifest: PluginManifest<"tracker"> = {
  name: "repohost",
  slot: "tracker",
  description: "GitHub issues through the REST API",
  version: VERSION
}

export const create = (config: RepohostTrackerConfig): BuiltinTracker => {
  const { repo, ...rest } = settingsOf(Settings, manifest.name, config)
  return trackerComponent(createNow(Effect.map(Host, (host) => makeRepohostTracker(repo, { ...rest, plugin: manifest.name }, host.env))))
}
