/**
 * A viewer of a terminal shared by every viewer (the `process` runtime's pty, owned by the supervisor): the output
 * kept so far, then live output. An interactive viewer's size applies to the shared pty; a read-only viewer
 * neither types nor resizes. The pty cannot wait for one slow viewer: a viewer that falls too far behind is
 * dropped (`TerminalBehind`; it may attach again, to a replay). Releasing the viewer only stops listening.
 */
import * as Effect from "effect/Effect"
import { type AttachOptions, type Terminal, type TerminalSize, TerminalUnavailable } from "../../domain/terminal.ts"
import { makeOutputPipe } from "./terminal-output.ts"

/** What a shared pty offers its viewers. */
export interface SharedPty {
  /** The raw output kept so far, to draw the screen for a new viewer. */
  readonly replay: () => string
  /** Each return a function that stops listening. */
  readonly onData: (listener: (data: string) => void) => () => void
  readonly onExit: (listener: () => void) => () => void
  readonly exited: () => boolean
  readonly write: (data: string) => void
  readonly resize: (cols: number, rows: number) => void
}

export const attachShared = Effect.fnUntraced(function*(
  sessionId: string,
  pty: SharedPty | undefined,
  size: TerminalSize,
  options: AttachOptions
) {
  if (pty === undefined || pty.exited()) {
    return yield* new TerminalUnavailable({ sessionId, reason: "this session has no live terminal in this supervisor" })
  }
  const pipe = yield* makeOutputPipe(sessionId, { _tag: "Drop" })
  // The replay and the subscription in one go: no chunk is lost or shown twice between them.
  pipe.push(pty.replay())
  const offData = pty.onData(pipe.push)
  const offExit = pty.onExit(() => pipe.end("the agent's process ended"))
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      offData()
      offExit()
    })
  )
  if (!options.readOnly) pty.resize(size.cols, size.rows)
  return {
    output: pipe.output,
    write: (data) => (options.readOnly ? Effect.void : Effect.sync(() => pty.write(data))),
    resize: (cols, rows) => (options.readOnly ? Effect.void : Effect.sync(() => pty.resize(cols, rows))),
    ended: pipe.ended
  } satisfies Terminal
})
