/**
 * A viewer of a `multiplexer` session: its own `tmux attach` client, in a pty of the viewer's size, so a phone
 * and a laptop each see a whole screen of their own size. The window follows whoever typed last
 * (`window-size latest`, set on the session as the client attaches); a read-only viewer attaches with `-r`
 * (`read-only,ignore-size`), so it can neither type nor resize anyone else's view. Releasing the viewer kills
 * its client only; the session runs on.
 */
import type { IPty } from "@lydell/node-pty"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import type { RuntimeHandle } from "../../domain/session.ts"
import { type AttachOptions, type Terminal, type TerminalSize, TerminalUnavailable } from "../../domain/terminal.ts"
import { makeOutputPipe } from "./terminal-output.ts"

const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]/g

/** What the client printed last, as one line: tmux says there why it stopped (`[exited]`, `can't find session`). */
const lastLine = (tail: string) => tail.replace(ESCAPES, "").trim().split("\n").at(-1)?.trim() ?? ""

/** The environment of the client: the supervisor's, but never inside another tmux. */
const clientEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== "TMUX" && key !== "TMUX_PANE") env[key] = value
  return { ...env, TERM: "xterm-256color" }
}

/** The tmux arguments of a viewer's client: the window follows whoever typed last; `-r` for read-only viewers. */
export const attachArgs = (sessionId: string, readOnly: boolean): Array<string> => [
  "set-option",
  "-w",
  "-t",
  `=${sessionId}:`,
  "window-size",
  "latest",
  ";",
  "attach-session",
  ...(readOnly ? ["-r"] : []),
  "-t",
  `=${sessionId}`
]

/** `attach` of the multiplexer runtime; `socket` is the runtime's own, for handles that do not name theirs. */
export const attachTmux = (socket: string) => (handle: RuntimeHandle, size: TerminalSize, options: AttachOptions) =>
  attachClient(
    handle.id,
    "tmux",
    ["-u", "-S", typeof handle.data.socket === "string" ? handle.data.socket : socket, ...attachArgs(handle.id, options.readOnly)],
    size,
    options
  )

/**
 * A viewer's client, `file args` (tmux here, or ssh running it on a host), in a pty of the viewer's size; the
 * terminal ends when the client exits, with the last line it printed.
 */
export const attachClient = Effect.fnUntraced(
  function*(sessionId: string, file: string, args: ReadonlyArray<string>, size: TerminalSize, options: AttachOptions) {
    const { spawn } = createRequire(import.meta.url)("@lydell/node-pty") as typeof import("@lydell/node-pty")
    const pty: IPty = yield* Effect.acquireRelease(
      Effect.try({
        try: () => spawn(file, [...args], { name: "xterm-256color", cols: size.cols, rows: size.rows, cwd: homedir(), env: clientEnv() }),
        catch: (error) => new TerminalUnavailable({ sessionId, reason: `cannot start ${file}: ${error instanceof Error ? error.message : String(error)}` })
      }),
      (pty) => Effect.sync(() => pty.kill())
    )
    let exited = false
    let tail = ""
    const pipe = yield* makeOutputPipe(sessionId, { _tag: "Pause", pause: () => pty.pause(), resume: () => pty.resume() })
    const data = pty.onData((chunk) => {
      tail = (tail + chunk).slice(-200)
      pipe.push(chunk)
    })
    const exit = pty.onExit(() => {
      exited = true
      pipe.end(lastLine(tail) || "the terminal ended")
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        data.dispose()
        exit.dispose()
      })
    )
    return {
      output: pipe.output,
      // A read-only client ignores keys anyway (`-r`); nothing is sent to it at all.
      write: (text) => Effect.sync(() => (exited || options.readOnly ? undefined : pty.write(text))),
      // The client's own size: with `-r` (ignore-size) it never changes the window.
      resize: (cols, rows) => Effect.sync(() => (exited ? undefined : pty.resize(cols, rows))),
      ended: pipe.ended
    } satisfies Terminal
  }
)
