/** A private tmux server per test file: its own socket in a temp dir, killed when the scope closes. */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const privateTmux = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = mkdtempSync(join(tmpdir(), "orch-tmux-"))
    return { dir, socket: join(dir, "tmux.sock") }
  }),
  ({ dir, socket }) =>
    Effect.sync(() => {
      try {
        execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
      } catch {
        // no server was started
      }
      rmSync(dir, { recursive: true, force: true })
    })
)

export const tmuxSessions = (socket: string): Array<string> => {
  try {
    return execFileSync("tmux", ["-S", socket, "list-sessions", "-F", "#{session_name}"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\n").filter(Boolean)
  } catch {
    return []
  }
}

/**
 * An empty directory for `TMUX_TMPDIR`, as a fresh user has: the tmux server orch starts under it (its
 * `tmux-<uid>/default` socket: the sessions and orchestrator a test made on this machine) is killed when the scope closes.
 */
export const emptyTmuxTmpdir = (dir: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      mkdirSync(dir, { recursive: true })
      return dir
    }),
    () =>
      Effect.sync(() => {
        try {
          execFileSync("tmux", ["-S", join(dir, `tmux-${process.getuid?.() ?? 0}`, "default"), "kill-server"], { stdio: "ignore" })
        } catch {
          // no server was started
        }
      })
  )
