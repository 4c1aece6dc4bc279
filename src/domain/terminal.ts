/**
 * A session's terminal as one viewer sees it: what a runtime's `attach` gives (src/plugins/runtime/Runtime.ts)
 * and what the dashboard's terminal sockets show. Declared here so that both can name it without importing
 * each other.
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { RuntimeHandle } from "./session.ts"

export interface TerminalSize {
  readonly cols: number
  readonly rows: number
}

export interface AttachOptions {
  /** A viewer that only watches: its input is dropped and its size never applies to anyone else's view. */
  readonly readOnly: boolean
}

/** There is no terminal to show: `reason` says why, in a sentence for the viewer. */
export class TerminalUnavailable extends Schema.TaggedError<TerminalUnavailable>()("TerminalUnavailable", {
  sessionId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** The viewer stopped taking the output of a terminal that cannot wait for it (one shared with others). */
export class TerminalBehind extends Schema.TaggedError<TerminalBehind>()("TerminalBehind", {
  sessionId: Schema.String,
  bufferedBytes: Schema.Int
}) {
  override get message() {
    return `the viewer fell ${Math.round(this.bufferedBytes / 1024)} KB behind the terminal's output`
  }
}

/** One viewer's terminal, alive until the Scope it was attached in closes. */
export interface Terminal {
  /**
   * What the terminal prints, as text; for a shared terminal, what it printed so far first, then live. It ends
   * when the terminal ends, and fails when this viewer fell too far behind a terminal that cannot wait.
   */
  readonly output: Stream.Stream<string, TerminalBehind>
  /** Types into the terminal (dropped for a read-only viewer). */
  readonly write: (data: string) => Effect.Effect<void>
  /** This viewer's size (a read-only viewer's never applies to anyone else's view). */
  readonly resize: (cols: number, rows: number) => Effect.Effect<void>
  /**
   * Completes when the terminal has ended, with one line saying how (what it last printed, or why); fails as soon
   * as this viewer is dropped for falling behind, even while it is not pulling `output`.
   */
  readonly ended: Effect.Effect<string, TerminalBehind>
}

export type Attach = (
  handle: RuntimeHandle,
  size: TerminalSize,
  options: AttachOptions
) => Effect.Effect<Terminal, TerminalUnavailable, Scope.Scope>
