/** The runtime slot as a plugin module's component sees it: where an agent process lives and how text reaches it. */
import * as Schema from "effect/Schema"
import type { Returned } from "./common.ts"

/** What `create` is asked to start. */
export interface RuntimeLaunch {
  readonly sessionId: string
  /** The workspace: the directory the command runs in. */
  readonly workingDir: string
  /** A shell command line (run by /bin/sh). */
  readonly command: string
  /** Variables to set for the agent, over the caller's environment. */
  readonly env: Readonly<Record<string, string>>
  /** Variables to remove from the agent's environment. */
  readonly unsetEnv: ReadonlyArray<string>
}

/** What `create` returns: the runtime's own id for what it started, and anything it wants back later. */
export const RuntimeHandleFromPlugin = Schema.Struct({
  id: Schema.String,
  runtimeName: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
export type RuntimeHandleFromPlugin = typeof RuntimeHandleFromPlugin.Encoded

/** What `lastOutputAt` returns: when the terminal last printed anything, in ms since the epoch; undefined when it cannot tell. */
export const LastOutputAtFromPlugin = Schema.UndefinedOr(Schema.Finite)

/** What the other methods receive: the handle `create` returned, with the runtime's name and `data` filled in. */
export interface RuntimePluginHandle {
  readonly id: string
  readonly runtimeName: string
  readonly data: Readonly<Record<string, unknown>>
}

/** What `attach` is given: the viewer's terminal size, and whether it only watches. */
export interface RuntimeAttachSize {
  readonly cols: number
  readonly rows: number
}
export interface RuntimeAttachOptions {
  /** The viewer only watches: it never types, and its size applies to nobody else's view. */
  readonly readOnly: boolean
}

/**
 * What `attach` returns: one viewer's terminal, node-pty-like. `onData` and `onExit` return a function that
 * stops listening. A terminal that can hold its output back while the viewer is behind has `pause` and
 * `resume`; without them, a viewer that falls too far behind is dropped (and attaches again). `close` is
 * called when the viewer leaves.
 */
export interface RuntimePluginTerminal {
  /** Each chunk of output, as text; for a terminal shared by several viewers, what it printed so far first. */
  onData(listener: (data: string) => void): () => void
  /** Once, when the terminal ends, with a line saying how when it can tell. */
  onExit(listener: (how?: string) => void): () => void
  write(data: string): void
  resize(cols: number, rows: number): void
  pause?(): void
  resume?(): void
  close?(): unknown
}

const isFunction = (u: unknown): u is (...args: ReadonlyArray<never>) => unknown => typeof u === "function"
const Method = Schema.declare(isFunction, { expected: "a function" })

/** The shape `attach`'s answer is checked against (the object itself is used, so its methods keep their `this`). */
export const TerminalFromPlugin = Schema.Struct({
  onData: Method,
  onExit: Method,
  write: Method,
  resize: Method,
  pause: Schema.optionalKey(Method),
  resume: Schema.optionalKey(Method),
  close: Schema.optionalKey(Method)
})

export interface RuntimeComponent {
  readonly name?: string
  /** Starts `command` in `workingDir`. */
  create(launch: RuntimeLaunch): Returned<RuntimeHandleFromPlugin>
  /** Types `text` into the agent's input and submits it. */
  sendCommand(handle: RuntimePluginHandle, text: string): Returned<unknown>
  /** Ends it; succeeds when it is already gone. */
  destroy(handle: RuntimePluginHandle): Returned<unknown>
  /** The visible screen and `scrollbackLines` lines above it, as text. Without it, orch sees an empty screen. */
  getOutput?(handle: RuntimePluginHandle, scrollbackLines: number): Returned<string>
  /** Whether it still runs. Without it, orch takes it to be alive. */
  isAlive?(handle: RuntimePluginHandle): Returned<boolean>
  /**
   * When its terminal last printed anything (ms since the epoch), asked at every probe of a live session: how
   * orch tells an agent that went quiet (ready) from one that works. Without it, a session's activity comes
   * only from what its agent says and what its screen shows.
   */
  lastOutputAt?(handle: RuntimePluginHandle): Returned<number | undefined>
  /** A viewer's terminal (the dashboard shows it). Without it, the dashboard says the session has no terminal to show. */
  attach?(handle: RuntimePluginHandle, size: RuntimeAttachSize, options: RuntimeAttachOptions): Returned<RuntimePluginTerminal>
}
