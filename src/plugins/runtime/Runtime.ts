/** The runtime slot: where an agent process lives (a tmux session, a pty) and how text reaches it. */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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
  /** `pid`: the process the runtime started for the agent (on the session's host), when the runtime knows it. */
  | { readonly _tag: "Alive"; readonly lastOutputAt?: number; readonly pid?: number }
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
  /**
   * A look at one agent without asking the runtime's server: true when its process plainly runs on this machine
   * (the same process, not a zombie), false when this look cannot tell (then `probe` says how it ended). Absent
   * where the runtime has no such look.
   */
  readonly running?: (handle: RuntimeHandle) => Effect.Effect<boolean>
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

/** A terminal of the in-memory runtime: what it was started with, what it printed, what it was sent. */
export interface TestTerminal {
  readonly spec: LaunchSpec
  /** Everything it printed, one line per print or message. */
  screen: string
  readonly sent: Array<string>
  /** When it last printed (ms, by the Clock). */
  lastOutputAt: number
  exit?: { readonly exitCode: number }
}

/** An in-memory runtime for tests: it records the terminals it makes and answers probes from that record. */
export interface TestRuntime extends RuntimeShape {
  readonly terminals: ReadonlyMap<string, TestTerminal>
  /** The agent in terminal `id` prints a line. */
  readonly print: (id: string, line: string) => Effect.Effect<void, RuntimeError>
  /** The agent in terminal `id` exits; its terminal stays, as a dead tmux pane does. */
  readonly exit: (id: string, exitCode: number) => Effect.Effect<void, RuntimeError>
}

export const makeTestRuntime = (): TestRuntime => {
  const terminals = new Map<string, TestTerminal>()
  const fail = (operation: string, reason: string) => new RuntimeError({ plugin: "test", operation, reason })
  const find = (operation: string, id: string) =>
    Effect.suspend(() => {
      const terminal = terminals.get(id)
      return terminal === undefined ? Effect.fail(fail(operation, `no terminal ${id}`)) : Effect.succeed(terminal)
    })
  const print = (id: string, line: string) =>
    Effect.flatMap(find("print", id), (terminal) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        terminal.screen += `${line}\n`
        terminal.lastOutputAt = now
      }))
  return {
    name: "test",
    terminals,
    print,
    exit: (id, exitCode) => Effect.map(find("exit", id), (terminal) => void (terminal.exit = { exitCode })),
    create: (spec) =>
      Effect.gen(function*() {
        const existing = terminals.get(spec.sessionId)
        if (existing !== undefined && existing.exit === undefined) return yield* fail("create", `a terminal named ${spec.sessionId} already runs`)
        terminals.set(spec.sessionId, { spec, screen: "", sent: [], lastOutputAt: yield* Clock.currentTimeMillis })
        return { plugin: "test", id: spec.sessionId, data: {} }
      }),
    send: (handle, text) =>
      Effect.gen(function*() {
        const terminal = yield* find("send", handle.id)
        if (terminal.exit !== undefined) return yield* fail("send", "the agent has exited")
        terminal.sent.push(text)
        yield* print(handle.id, text)
      }),
    capture: (handle, scrollback = 0) =>
      Effect.map(find("capture", handle.id), (terminal) => terminal.screen.split("\n").slice(0, -1).slice(-(50 + scrollback)).join("\n")),
    probe: (handles) =>
      Effect.sync(() =>
        new Map(handles.map((handle): [string, Liveness] => {
          const terminal = terminals.get(handle.id)
          return [
            handle.id,
            terminal === undefined
              ? { _tag: "Gone" }
              : terminal.exit === undefined
              ? { _tag: "Alive", lastOutputAt: terminal.lastOutputAt }
              : { _tag: "Exited", ...terminal.exit }
          ]
        }))
      ),
    list: () => Effect.sync(() => [...terminals.keys()]),
    destroy: (handle) => Effect.sync(() => void terminals.delete(handle.id))
  }
}

export class Runtime extends Context.Service<Runtime, RuntimeShape>()("orch/plugins/Runtime") {
  /** The in-memory runtime (pass one to inspect and drive it). */
  static readonly layerTest = (runtime: TestRuntime = makeTestRuntime()) => Layer.succeed(Runtime, runtime)
}
