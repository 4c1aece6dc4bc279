/**
 * A project `postCreate` that holds a spawn half-way: in a session's worktree it writes the shell's pid to
 * `../started-<session>` (whole, by rename), then becomes `sleep`. The orchestrator's worktree (`orch start`) is let
 * through. Tests wait for the marker, then kill or interrupt the spawn in the middle.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"

export const BLOCKING_POST_CREATE = `case "$(basename "$PWD")" in *-orchestrator) ;; *) ` +
  `echo $$ > "../.started-$(basename "$PWD")" && mv "../.started-$(basename "$PWD")" "../started-$(basename "$PWD")" && exec sleep 300;; esac`

/** Where `sessionId`'s marker appears (its project's worktrees directory). */
export const postCreateMarker = (dataDir: string, projectId: string, sessionId: string) => join(dataDir, "worktrees", projectId, `started-${sessionId}`)

/**
 * The pid of the blocked postCreate of `sessionId`, once it runs, with its marker removed (a later spawn given the
 * same id writes its own); undefined until then.
 */
export const blockedPostCreate = (dataDir: string, projectId: string, sessionId: string): number | undefined => {
  const marker = postCreateMarker(dataDir, projectId, sessionId)
  if (!existsSync(marker)) return undefined
  const pid = Number(readFileSync(marker, "utf8"))
  rmSync(marker)
  return pid
}
