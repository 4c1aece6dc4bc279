/**
 * The lines `orch status` prints about the running supervisor's config file (from `config-state.json`): an
 * edit it could not apply, settings that wait for a restart, a file it cannot watch. Pure. The first is also what a
 * spawn the supervisor serves warns of (actors/app.ts), so a spawn on the last good config says so.
 */
import type { ConfigState } from "../src/store/config-state.ts"

const hhmm = (iso: string) => `${iso.slice(11, 16)} UTC`

/** `/home/me/x` → `~/x`. */
const shortPath = (path: string, homeDir: string) => (homeDir !== "" && path.startsWith(`${homeDir}/`) ? `~/${path.slice(homeDir.length + 1)}` : path)

/** The note about an edit the supervisor could not apply, or undefined when its newest file is in force. */
export const rejectedNote = (state: ConfigState, homeDir: string): string | undefined =>
  state.rejected === undefined
    ? undefined
    : `config: ${shortPath(state.file, homeDir)} has an error since ${hhmm(state.rejected.since)} and was not applied: ${state.rejected.problem}${
      state.rejected.location !== undefined ? ` (${shortPath(state.rejected.location, homeDir)})` : ""
    }`

export const configNotes = (state: ConfigState, homeDir: string): ReadonlyArray<string> => {
  const file = shortPath(state.file, homeDir)
  const rejected = rejectedNote(state, homeDir)
  return [
    ...(rejected !== undefined ? [rejected] : []),
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
