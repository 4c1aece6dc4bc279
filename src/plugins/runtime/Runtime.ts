/** The runtime slot: where an agent process lives (a tmux session, a pty) and how text reaches it. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { RuntimeHandle } from "../../domain/session.ts"
import type { Attach } from "../../domain/terminal.ts"

export class RuntimeError extends Schema.TaggedError<RuntimeError>()("RuntimeError", {
  plugin: Schema.String,
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.plugin}: ${this.operation} failed: ${this.reason}`
  }
}

/** A message was pasted but the agent did not take it: it is still sitting in its input line. */
export class DeliveryUnconfirmed extends Schema.TaggedError<DeliveryUnconfirmed>()("DeliveryUnconfirmed", {
  target: Schema.String,
  attempts: Schema.Int
}) {
  override get message() {
    return `the message reached ${this.target}'s input but was not submitted after ${this.attempts} tries of Enter`
  }
}

export interface LaunchSpec {
  readonly sessionId: string
  readonly workingDir: string
  /** A shell command line (run by /bin/sh). */
  readonly command: string
  /** Variables set for the agent, over the caller's environment. */
  readonly env: Readonly<Record<string, string>>
  /** Variables removed from the agent's environment (e.g. orch's own repohost token). */
  readonly unsetEnv: ReadonlyArray<string>
}

/**
 * What a probe tells about a runtime: alive (with when its terminal last printed anything, ms since the epoch,
 * where the runtime can tell: the activity rule's quiescence), its process exited (with its code once known),
 * or gone entirely.
 */
export type Liveness =
  | { readonly _tag: "Alive"; readonly lastOutputAt?: number }
  | { readonly _tag: "Exited"; readonly exitCode?: number; readonly signal?: number }
  | { readonly _tag: "Gone" }

export interface RuntimeShape {
  readonly name: string
  readonly create: (spec: LaunchSpec) => Effect.Effect<RuntimeHandle, RuntimeError>
  /** Types `text` into the agent's input and submits it, then confirms the agent took it. */
  readonly send: (handle: RuntimeHandle, text: string) => Effect.Effect<void, RuntimeError | DeliveryUnconfirmed>
  /** The visible screen (and `scrollback` lines above it), as plain text. */
  readonly capture: (handle: RuntimeHandle, scrollback?: number) => Effect.Effect<string, RuntimeError>
  /** Liveness (and last output time) of many handles with one call; a handle missing from the answer was not probed. */
  readonly probe: (handles: ReadonlyArray<RuntimeHandle>) => Effect.Effect<ReadonlyMap<string, Liveness>, RuntimeError>
  /** The ids of every session this runtime holds, orch's or not (for finding orphans); absent if it cannot tell. */
  readonly list?: () => Effect.Effect<ReadonlyArray<string>, RuntimeError>
  /**
   * A viewer's terminal (src/domain/terminal.ts), released with the Scope it was attached in; absent when the
   * runtime has no terminal to show (the dashboard then says so).
   */
  readonly attach?: Attach
  /** Ends the agent process and frees the runtime. Succeeds if it is already gone. */
  readonly destroy: (handle: RuntimeHandle) => Effect.Effect<void, RuntimeError>
}

export class Runtime extends Context.Service<Runtime, RuntimeShape>()("orch/plugins/Runtime") {}
