/**
 * What a new config changes against the one in force, and what of it a running supervisor can apply: pure.
 * Projects are compared by id (the basename of their path, which names their sessions' records). The
 * supervisor's listening sockets (`host`, `port`, `terminalPort`, `directTerminalPort`) are bound when it
 * starts: a new value waits for a restart, and until then the config in force keeps the running one.
 */
import { isDeepStrictEqual } from "node:util"
import type { OrchestratorConfig, ProjectConfig } from "./schema.ts"

/** Settings a running supervisor cannot change: the addresses its dashboard and terminal sockets listen on. */
export const RESTART_SETTINGS = ["host", "port", "terminalPort", "directTerminalPort"] as const
export type RestartSetting = typeof RESTART_SETTINGS[number]

/** Settings that apply from the next decision on. */
export const LIVE_SETTINGS = [
  "readyThresholdMs",
  "pollIntervalMs",
  "maxSessions",
  "defaults",
  "notifiers",
  "plugins",
  "notificationRouting",
  "reactions",
  "hosts"
] as const
export type LiveSetting = typeof LIVE_SETTINGS[number]

export interface ConfigChange {
  /** Project ids, sorted. */
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Projects whose settings or plugin modules changed: their plugins are made again. */
  readonly changed: ReadonlyArray<string>
  /** Top-level settings that changed and apply now. */
  readonly settings: ReadonlyArray<LiveSetting>
  /** Settings whose value in the file differs from the running supervisor's: they wait for a restart. */
  readonly restartNeeded: ReadonlyArray<RestartSetting>
  /** The config to put in force: the new one, with the settings that need a restart at their running values. */
  readonly next: OrchestratorConfig
}

const byId = (config: OrchestratorConfig): ReadonlyMap<string, ProjectConfig> => new Map(Object.values(config.projects).map((project) => [project.id, project]))

/** The names a project's plugins go by: a module of that name under `plugins` provides it. */
const pluginNames = (
  project: ProjectConfig
): ReadonlyArray<string> => [
  project.runtime,
  project.agent,
  project.workspace,
  project.tracker.plugin,
  ...(project.scm !== undefined ? [project.scm.plugin] : [])
]

/** Whether a project's plugins as `candidate` makes them differ from those `running` made: its settings or its plugin modules changed. */
export const projectChanged = (running: OrchestratorConfig, candidate: OrchestratorConfig, before: ProjectConfig, after: ProjectConfig) =>
  !isDeepStrictEqual(before, after) ||
  pluginNames(after).some((name) => !isDeepStrictEqual(running.plugins[name], candidate.plugins[name]))

/** `running` is the config in force; `candidate` was just loaded and validated. */
export const configChange = (running: OrchestratorConfig, candidate: OrchestratorConfig): ConfigChange => {
  const before = byId(running)
  const after = byId(candidate)
  const restartNeeded = RESTART_SETTINGS.filter((key) => running[key] !== candidate[key])
  const kept = Object.fromEntries(restartNeeded.map((key) => [key, running[key]]))
  return {
    added: [...after.keys()].filter((id) => !before.has(id)).sort(),
    removed: [...before.keys()].filter((id) => !after.has(id)).sort(),
    changed: [...after].filter(([id, project]) => before.has(id) && projectChanged(running, candidate, before.get(id)!, project)).map(([id]) => id).sort(),
    settings: LIVE_SETTINGS.filter((key) => !isDeepStrictEqual(running[key], candidate[key])),
    restartNeeded,
    next: { ...candidate, ...kept }
  }
}

/** Whether the new config changes nothing the supervisor runs on (and waits for nothing). */
export const isUnchanged = (change: ConfigChange): boolean =>
  change.added.length + change.removed.length + change.changed.length + change.settings.length + change.restartNeeded.length === 0

/** One line: "projects added: web; changed: app; reactions changed; port needs a restart". */
export const describeChange = (change: ConfigChange): string => {
  const list = (label: string, ids: ReadonlyArray<string>) => (ids.length > 0 ? [`${label}: ${ids.join(", ")}`] : [])
  const parts = [
    ...list("projects added", change.added),
    ...list("projects removed", change.removed),
    ...list("projects changed", change.changed),
    ...(change.settings.length > 0 ? [`${change.settings.join(", ")} changed`] : []),
    ...(change.restartNeeded.length > 0 ? [`${change.restartNeeded.join(", ")} ${change.restartNeeded.length === 1 ? "needs" : "need"} a restart`] : [])
  ]
  return parts.length > 0 ? parts.join("; ") : "nothing the supervisor runs on changed"
}
