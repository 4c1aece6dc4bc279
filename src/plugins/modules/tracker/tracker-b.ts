/**
 * The `tracker-b` tracker as a plugin module (`orch/plugins/tracker/tracker-b`): Linear issues through Linear's
 * GraphQL API. `create` takes the keys of a project's `tracker` entry (`teamId`, `apiKey`, `apiUrl`,
 * `useBranchName`, `commentOn`; docs/configuration.md#trackers) and throws a PluginConfigError naming a bad one.
 */
import { VERSION } from "../../../version.ts"
import { createNow } from "../../components/create.ts"
import { type BuiltinTracker, trackerComponent } from "../../components/tracker.ts"
import type { PluginManifest } from "../../contract/common.ts"
import { makeLinearTracker } from "../../tracker/tracker-b.ts"

export type { BuiltinTracker } from "../../components/tracker.ts"

export interface TrackerBConfig {
  /** The Linear team's key (e.g. ENG) or id. */
  readonly teamId: string
  readonly apiKey: string
  readonly apiUrl?: string
  /** Branch on the suggested `branchName` (default true). */
  readonly useBranchName?: boolean
  /** Event types to comment on the issue for (see docs/events.md). */
  readonly commentOn?: ReadonlyArray<string>
}

export const manifest: PluginManifest<"tracker"> = {
  name: "tracker-b",
  slot: "tracker",
  description: "Linear issues through Linear's GraphQL API",
  version: VERSION
}

export const create = (config: TrackerBConfig): BuiltinTracker =>
  trackerComponent(createNow(makeLinearTracker({ key: manifest.name, tracker: { ...config, plugin: manifest.name } }, manifest.name)))
