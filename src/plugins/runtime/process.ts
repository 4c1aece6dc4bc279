/**
 * Runtime `process`: the agent in a pseudo-terminal (node-pty) owned by the running supervisor, for machines
 * without tmux. Its sessions live as long as the supervisor does; spawning one needs a supervisor (the CLI
 * then goes through it). The "screen" is the tail of the terminal's output with escape sequences removed.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import type { RuntimeHandle } from "../../domain/session.ts"
import { DeliveryUnconfirmed, type LaunchSpec, type Liveness, RuntimeError, type RuntimeShape } from "./Runtime.ts"
import { attachShared, type SharedPty } from "./shared-terminal.ts"

const PLUGIN = "process"
const TAIL_BYTES = 256 * 1024
const CONFIRM_POLLS = 40
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]/g

/**
 * What this runtime uses of a node-pty terminal. Its own type, not node-pty's: the library's declarations reach it
 * (ProjectPlugins' resources), and node-pty's declarations need Node's types, which a program using orch may not load.
 */
export interface Pty {
  readonly pid: number
  readonly write: (data: string) => void
  readonly resize: (cols: number, rows: number) => void
  readonly kill: (signal?: string) => void
  readonly onData: (listener: (data: string) => void) => { readonly dispose: () => void }
  readonly onExit: (listener: (event: { readonly exitCode: number; readonly signal?: number }) => void) => { readonly dispose: () => void }
}

export interface OwnedPty {
  readonly pty: Pty
  tail: string
  /** When the terminal last printed anything (ms, by the supervisor's Clock). */
  lastOutputAt: number
  exit?: { readonly exitCode: number; readonly signal?: number }
}

/**
 * The terminals of the `process` runtime in this process, and whether it is the supervisor's (only the supervisor
 * may own agents). One table per process (ProjectPlugins owns it), handed to every `process` runtime it builds, so
 * a runtime made again by a config reload still holds the running agents.
 */
export interface ProcessTerminals {
  readonly supervisor: boolean
  readonly owned: Map<string, OwnedPty>
}

/** The table, for as long as the scope lives: when it closes (the supervisor stops) its terminals end with it. */
export const makeProcessTerminals = (options: { readonly supervisor: boolean }) =>
  Effect.acquireRelease(
    Effect.sync((): ProcessTerminals => ({ supervisor: options.supervisor, owned: new Map() })),
    ({ owned }) =>
      Effect.sync(() => {
        // An open pty would also keep the process alive.
        for (const [id, state] of owned) {
          owned.delete(id)
          try {
            state.pty.kill()
          } catch {
            // already gone
          }
        }
      })
  )

/** A `process` session's terminal, shared by its viewers (`attach`): what it printed so far (the last 256 KB), and live. */
const processTerminal = ({ owned }: ProcessTerminals, id: string): SharedPty | undefined => {
  const state = owned.get(id)
  if (state === undefined) return undefined
  return {
    replay: () => state.tail,
    onData: (listener) => {
      const subscription = state.pty.onData(listener)
      return () => subscription.dispose()
    },
    onExit: (listener) => {
      const subscription = state.pty.onExit(listener)
      return () => subscription.dispose()
    },
    exited: () => state.exit !== undefined || owned.get(id) !== state,
    write: (data) => {
      if (state.exit === undefined) state.pty.write(data)
    },
    resize: (cols, rows) => {
      if (state.exit === undefined) state.pty.resize(cols, rows)
    }
  }
}

const fail = (operation: string, reason: string) => new RuntimeError({ plugin: PLUGIN, operation, reason })

/** Plain text of a terminal's output: escape sequences removed, carriage returns resolved per line. */
export const plainScreen = (raw: string, lines: number): string =>
  raw.replace(ANSI, "").split(/\r?\n/).map((line) => line.split("\r").at(-1) ?? "").slice(-lines).join("\n")

export const makeProcessRuntime = (terminals: ProcessTerminals): RuntimeShape => {
  const { owned, supervisor } = terminals
  const entry = (operation: string, handle: RuntimeHandle) => {
    const found = owned.get(handle.id)
    return found === undefined
      ? Effect.fail(fail(operation, `no terminal ${handle.id} in this supervisor (it ends when the supervisor that started it stops)`))
      : Effect.succeed(found)
  }

  const create = Effect.fn("Runtime.process.create")(function*(spec: LaunchSpec) {
    if (!supervisor) {
      return yield* fail("create", "runtime process keeps agents inside the supervisor: start one first with `orch start <project>`")
    }
    const { spawn } = createRequire(import.meta.url)("@lydell/node-pty") as typeof import("@lydell/node-pty")
    const env = { ...spec.env }
    for (const name of spec.unsetEnv) delete env[name]
    const pty = yield* Effect.try({
      try: () => spawn("/bin/sh", ["-c", spec.command], { name: "xterm-256color", cols: 200, rows: 50, cwd: spec.workingDir, env }),
      catch: (cause) => fail("create", cause instanceof Error ? cause.message : String(cause))
    })
    const clock = yield* Clock.Clock
    const state: OwnedPty = { pty, tail: "", lastOutputAt: clock.currentTimeMillisUnsafe() }
    pty.onData((chunk) => {
      state.tail = (state.tail + chunk).slice(-TAIL_BYTES)
      state.lastOutputAt = clock.currentTimeMillisUnsafe()
    })
    pty.onExit(({ exitCode, signal }) => {
      state.exit = signal ? { exitCode, signal } : { exitCode }
    })
    owned.set(spec.sessionId, state)
    return { plugin: PLUGIN, id: spec.sessionId, data: { pid: pty.pid } } satisfies RuntimeHandle
  })

  const send = Effect.fn("Runtime.process.send")(function*(handle: RuntimeHandle, text: string) {
    const state = yield* entry("send", handle)
    if (state.exit !== undefined) return yield* fail("send", "the agent has exited")
    const before = state.tail.length
    state.pty.write(`${text.replace(/\s+$/, "")}\r`)
    // Taken when the terminal answers (echo, or the agent's own drawing).
    for (let poll = 0; poll < CONFIRM_POLLS; poll++) {
      if (state.tail.length !== before) return
      yield* Effect.sleep("50 millis")
    }
    return yield* new DeliveryUnconfirmed({ target: handle.id, attempts: 1 })
  })

  return {
    name: PLUGIN,
    create,
    send,
    capture: (handle, scrollback = 0) => Effect.map(entry("capture", handle), (state) => plainScreen(state.tail, 50 + scrollback)),
    probe: (handles) =>
      Effect.succeed(
        new Map(handles.map((handle): [string, Liveness] => {
          const state = owned.get(handle.id)
          return [
            handle.id,
            state === undefined
              ? { _tag: "Gone" }
              : state.exit === undefined
              ? { _tag: "Alive", lastOutputAt: state.lastOutputAt, pid: state.pty.pid }
              : { _tag: "Exited", ...state.exit }
          ]
        }))
      ),
    list: () => Effect.succeed([...owned.keys()]),
    attach: (handle, size, options) => attachShared(handle.id, processTerminal(terminals, handle.id), size, options),
    destroy: (handle) =>
      Effect.sync(() => {
        const state = owned.get(handle.id)
        owned.delete(handle.id)
        try {
          state?.pty.kill()
        } catch {
          // already gone
        }
      })
  }
}
