/**
 * The `repohost` scm as a plugin module (`orch/plugins/scm/repohost`): the pull requests of `repo`'s branches, with
 * their checks and reviews, through GitHub's GraphQL API, and merging through REST (`apiUrl`, `token` as for the
 * tracker; `mergeMethod`, default squash, for `merge` without one). `create` throws a PluginConfigError when `repo` is
 * not `owner/name` or `mergeMethod` is not squash, merge or rebase.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Host } from "../../../config/host.ts"
import { ProjectConfig } from "../../../config/schema.ts"
import { VERSION } from "../../../version.ts"
import { createNow, settingsOf } from "../../components/create.ts"
import { type BuiltinScm, scmComponent } from "../../components/scm.ts"
import type { PluginManifest } from "../../contract/common.ts"
import { makeRepohostScm } from "../../scm/repohost.ts"
import { MERGE_METHODS, mergeMethodOf } from "../../scm/Scm.ts"

export type { BuiltinScm } from "../../components/scm.ts"

const Settings = Schema.StructWithRest(
  Schema.Struct({
    /** The repository whose pull requests these are: `owner/name`. */
    repo: ProjectConfig.fields.repo,
    apiUrl: Schema.optionalKey(Schema.String),
    token: Schema.optionalKey(Schema.String),
    mergeMethod: Schema.optionalKey(Schema.Literals(MERGE_METHODS))
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type RepohostScmConfig = typeof Settings.Encoded

export const manifest: PluginManifest<"scm"> = {
  name: "repohost",
  slot: "scm",
  description: "GitHub pull requests, checks and reviews (GraphQL), and merging (REST)",
  version: VERSION
}

export const create = (config: RepohostScmConfig): BuiltinScm => {
  const { repo, ...rest } = settingsOf(Settings, manifest.name, config)
  const scm = { ...rest, plugin: manifest.name }
  return scmComponent(createNow(Effect.map(Host, (host) => makeRepohostScm(repo, scm, host.env))), mergeMethodOf(scm))
}
