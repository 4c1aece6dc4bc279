/**
 * Where orch's tmux server listens, and making that place usable as tmux itself would. orch passes the socket
 * with `-S` so every orch process talks to the same server; tmux does not create the directory of a socket given
 * that way. On a machine where tmux never ran since boot `$TMUX_TMPDIR/tmux-<uid>/` does not exist, the server
 * cannot bind, and `tmux new-session` still exits 0. So orch creates the directory (0700) the way tmux does, and
 * refuses one tmux would refuse: not ours, or open to other users.
 */
import { mkdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"

/** The socket tmux itself would use (honouring TMUX_TMPDIR), unless ORCH_TMUX_SOCKET names one. */
export const defaultTmuxSocket = (env: Readonly<Record<string, string | undefined>>): string =>
  env.ORCH_TMUX_SOCKET || join(env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`, "default")

export type SocketDirState =
  | { readonly _tag: "Ready"; readonly dir: string }
  | { readonly _tag: "Missing"; readonly dir: string }
  | { readonly _tag: "Unsafe"; readonly dir: string; readonly reason: string }

/** What tmux would say of the socket's directory, without changing anything (for `orch doctor`). */
export const socketDirState = (socket: string): SocketDirState => {
  const dir = dirname(socket)
  const stat = statSync(dir, { throwIfNoEntry: false })
  if (stat === undefined) return { _tag: "Missing", dir }
  if (!stat.isDirectory()) return { _tag: "Unsafe", dir, reason: "it is not a directory" }
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) return { _tag: "Unsafe", dir, reason: `it belongs to uid ${stat.uid}, not to you (uid ${uid})` }
  // tmux refuses a socket directory other users can enter or read (TMUX_SOCK_PERM).
  if ((stat.mode & 0o007) !== 0) return { _tag: "Unsafe", dir, reason: `other users have access to it (mode ${(stat.mode & 0o777).toString(8)})` }
  return { _tag: "Ready", dir }
}

/** Creates the socket's directory (0700) when missing; the reason it cannot be used otherwise. */
export const ensureSocketDir = (socket: string): SocketDirState => {
  const state = socketDirState(socket)
  if (state._tag !== "Missing") return state
  try {
    mkdirSync(state.dir, { recursive: true, mode: 0o700 })
  } catch (error) {
    return { _tag: "Unsafe", dir: state.dir, reason: `it cannot be created: ${(error as NodeJS.ErrnoException).code ?? String(error)}` }
  }
  return socketDirState(socket)
}

/** One sentence for a directory tmux cannot use, with what to do. */
export const socketDirProblem = (state: Exclude<SocketDirState, { _tag: "Ready" }>): string =>
  state._tag === "Missing"
    ? `tmux's socket directory ${state.dir} does not exist yet (orch creates it, mode 0700, at the first spawn)`
    : `tmux cannot use its socket directory ${state.dir}: ${state.reason}; fix it (chmod 700, owned by you) or set TMUX_TMPDIR to a directory of your own`
