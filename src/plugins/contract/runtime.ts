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
}
