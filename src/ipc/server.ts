/** The supervisor's side of the socket: the RPC handlers, served on a Unix socket. */
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RpcSerialization, RpcServer } from "effect/rpc"
import { existsSync, rmSync } from "node:fs"
import { ProjectNotFound } from "../sessions/errors.ts"
import { SupervisorRpcs, toRemoteError } from "./protocol.ts"

/**
 * Serves the handlers (`SupervisorRpcs.toLayer(…)`) on `socket`. A socket file left by a supervisor that died
 * is removed first.
 */
export const ipcServerLayer = <ROut, E, RIn>(socket: string, handlers: Layer.Layer<ROut, E, RIn>) =>
  RpcServer.layer(SupervisorRpcs).pipe(
    Layer.provide(handlers),
    Layer.provide(RpcServer.layerProtocolSocketServer),
    Layer.provide(Layer.unwrap(Effect.sync(() => {
      if (existsSync(socket)) rmSync(socket, { force: true })
      return NodeSocketServer.layer({ path: socket })
    }))),
    Layer.provide(RpcSerialization.layerNdjson)
  )

/** Any failure of a procedure, as it crosses the socket. */
export const remote = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) => toRemoteError(error instanceof ProjectNotFound ? error.asSupervisorAnswer() : error))
