/**
 * A built-in runtime as a plugin module's component: the Effect runtime behind Promise methods. What a caller
 * passes (the launch, a handle) is decoded; a failure rejects with the runtime's tagged error.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { RuntimeHandle } from "../../domain/session.ts"
import type { Terminal, TerminalUnavailable } from "../../domain/terminal.ts"
import { decodeWith } from "../contract/common.ts"
import type {
  RuntimeAttachOptions,
  RuntimeAttachSize,
  RuntimeComponent,
  RuntimeLaunch,
  RuntimePluginHandle,
  RuntimePluginTerminal
} from "../contract/runtime.ts"
import { type DeliveryUnconfirmed, RuntimeError, type RuntimeShape } from "../runtime/Runtime.ts"

const Launch = Schema.Struct({
  sessionId: Schema.String,
  workingDir: Schema.String,
  command: Schema.String,
  env: Schema.Record(Schema.String, Schema.String).pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))),
  unsetEnv: Schema.Array(Schema.String).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))
})

const Handle = Schema.Struct({
  id: Schema.String,
  runtimeName: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/** The component a built-in runtime module's `create` returns: every method, each answering with a Promise. */
export interface BuiltinRuntime extends RuntimeComponent {
  readonly name: string
  create(launch: RuntimeLaunch): Promise<RuntimePluginHandle>
  sendCommand(handle: RuntimePluginHandle, text: string): Promise<void>
  destroy(handle: RuntimePluginHandle): Promise<void>
  getOutput(handle: RuntimePluginHandle, scrollbackLines?: number): Promise<string>
  isAlive(handle: RuntimePluginHandle): Promise<boolean>
  attach?(handle: RuntimePluginHandle, size: RuntimeAttachSize, options: RuntimeAttachOptions): Promise<RuntimePluginTerminal>
}

/**
 * A viewer's `Terminal`, attached in a scope of its own, as the node-pty-like terminal of the plugin contract.
 * Output printed before anyone listens is kept for the first listener; `close` ends the viewer.
 */
const pluginTerminal = (attach: Effect.Effect<Terminal, TerminalUnavailable, Scope.Scope>): Promise<RuntimePluginTerminal> =>
  Effect.runPromise(Effect.gen(function*() {
    const scope = yield* Scope.make()
    const terminal = yield* Scope.provide(attach, scope).pipe(Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))))
    const dataListeners = new Set<(data: string) => void>()
    const exitListeners = new Set<(how?: string) => void>()
    const early: Array<string> = []
    let ended: string | undefined
    const emit = (data: string) => {
      if (dataListeners.size === 0) early.push(data)
      for (const listener of dataListeners) listener(data)
    }
    const end = (how: string) => {
      ended = how
      for (const listener of exitListeners) listener(how)
    }
    yield* Stream.runForEach(terminal.output, (data) => Effect.sync(() => emit(data))).pipe(
      Effect.andThen(terminal.ended),
      Effect.match({ onFailure: (error) => end(error.message), onSuccess: end }),
      Effect.forkIn(scope)
    )
    const run = (effect: Effect.Effect<void>) => void Effect.runFork(effect)
    return {
      onData: (listener) => {
        dataListeners.add(listener)
        for (const data of early.splice(0)) listener(data)
        return () => dataListeners.delete(listener)
      },
      onExit: (listener) => {
        if (ended !== undefined) listener(ended)
        else exitListeners.add(listener)
        return () => exitListeners.delete(listener)
      },
      write: (data) => run(terminal.write(data)),
      resize: (cols, rows) => run(terminal.resize(cols, rows)),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    } satisfies RuntimePluginTerminal
  }))

export const runtimeComponent = (shape: RuntimeShape): BuiltinRuntime => {
  const input = <S extends Schema.Decoder<unknown>>(schema: S, operation: string, what: string) => (value: unknown) =>
    Effect.mapError(decodeWith(schema)(value), (problem) => new RuntimeError({ plugin: shape.name, operation, reason: `${what} is not valid: ${problem}` }))
  const handle = (operation: string, value: unknown) =>
    Effect.map(input(Handle, operation, "the handle")(value), (h): RuntimeHandle => ({ plugin: shape.name, id: h.id, data: h.data ?? {} }))
  const theirs = (h: RuntimeHandle): RuntimePluginHandle => ({ id: h.id, runtimeName: shape.name, data: h.data })
  const run = <A>(effect: Effect.Effect<A, RuntimeError | DeliveryUnconfirmed>): Promise<A> => Effect.runPromise(effect)
  return {
    name: shape.name,
    create: (launch) => run(Effect.map(Effect.flatMap(input(Launch, "create", "the launch")(launch), shape.create), theirs)),
    sendCommand: (h, text) =>
      run(Effect.gen(function*() {
        return yield* shape.send(yield* handle("send", h), yield* input(Schema.String, "send", "the text")(text))
      })),
    destroy: (h) => run(Effect.flatMap(handle("destroy", h), shape.destroy)),
    getOutput: (h, scrollbackLines = 0) =>
      run(Effect.gen(function*() {
        return yield* shape.capture(yield* handle("capture", h), yield* input(Schema.Int, "capture", "scrollbackLines")(scrollbackLines))
      })),
    isAlive: (h) =>
      run(Effect.gen(function*() {
        const decoded = yield* handle("probe", h)
        const liveness = (yield* shape.probe([decoded])).get(decoded.id)
        if (liveness === undefined) {
          return yield* new RuntimeError({ plugin: shape.name, operation: "probe", reason: `could not tell whether ${decoded.id} runs` })
        }
        return liveness._tag === "Alive"
      })),
    ...(shape.attach !== undefined
      ? {
        attach: (h, size, options) =>
          Effect.runPromise(handle("attach", h)).then((decoded) =>
            pluginTerminal(shape.attach!(decoded, { cols: size.cols, rows: size.rows }, { readOnly: options.readOnly }))
          )
      }
      : {})
  }
}
