/**
 * The lines `orch status` prints about the running supervisor's config file (from `config-state.json`): an
 * edit it could not apply, settings that wait for a restart, a file it cannot watch. Pure.
 */
import type { ConfigState } from "../store/config-state.ts"

const hhmm = (iso: string) => `${iso.slice(11, 16)} UTC`

/** `/home/me/x` → `~/x`. */
const shortPath = (path: string, homeDir: string) => (homeDir !== "" && path.startsWith(`${homeDir}/`) ? `~/${path.slice(homeDir.length + 1)}` : path)

export const configNotes = (state: ConfigState, homeDir: string): ReadonlyArray<string> => {
  const file = shortPath(state.file, homeDir)
  return [
    ...(state.rejected !== undefined
      ? [
        `config: ${file} has an error since ${hhmm(state.rejected.since)} and was not applied: ${state.rejected.problem}${
          state.rejected.location !== undefined ? ` (${shortPath(state.rejected.location, homeDir)})` : ""
        }`
      ]
      : []),
    ...(state.restartNeeded !== undefined
      ? [
        `config: ${state.restartNeeded.settings.join(", ")} changed in ${file} at ${hhmm(state.restartNeeded.since)}; the supervisor applies ${
          state.restartNeeded.settings.length === 1 ? "it" : "them"
        } when restarted (orch stop, then orch start)`
      ]
      : []),
    ...(state.unwatched !== undefined
      ? [`config: ${file} is not watched since ${hhmm(state.unwatched.since)} (${state.unwatched.reason}); edits to it are not seen`]
      : [])
  ]
}
