/**
 * A built-in runtime as a plugin module's component: the Effect runtime behind Promise methods. What a caller
 * passes (the launch, a handle) is decoded; a failure rejects with the runtime's tagged error.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { RuntimeHandle } from "../../domain/session.ts"
import { decodeWith } from "../contract/common.ts"
import type { RuntimeComponent, RuntimeLaunch, RuntimePluginHandle } from "../contract/runtime.ts"
import { RuntimeError, type DeliveryUnconfirmed, type RuntimeShape } from "../runtime/Runtime.ts"

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
}

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
        if (liveness === undefined) return yield* new RuntimeError({ plugin: shape.name, operation: "probe", reason: `could not tell whether ${decoded.id} runs` })
        return liveness._tag === "Alive"
      }))
  }
}
