/** The supervisor's side of the socket: the RPC handlers, served on a Unix socket. */
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RpcSerialization, RpcServer } from "effect/rpc"
import { Socket, SocketServer } from "effect/socket"
import { existsSync, rmSync } from "node:fs"
import { ProjectNotFound } from "../sessions/errors.ts"
import { SupervisorRpcs, toRemoteError } from "./protocol.ts"

/** A client's connection broke (read or write): it went away mid-request, as a Ctrl-C or a command that gave up does. */
const clientWentAway = (error: unknown): error is Socket.SocketError =>
  Socket.isSocketError(error) && (error.reason._tag === "SocketReadError" || error.reason._tag === "SocketWriteError")

/**
 * The socket server, with a client that went away ending its own connection: the handler's work for it is
 * interrupted as before, and it is a debug line, not an error with a stack in the supervisor's log (it is no failure
 * of the supervisor's). Any other error of a connection is logged as the server logs it.
 */
const clientsMayLeave = Layer.effect(
  SocketServer.SocketServer,
  Effect.gen(function*() {
    const server = yield* SocketServer.SocketServer
    return SocketServer.SocketServer.of({
      address: server.address,
      run: (handler) =>
        server.run((connection) =>
          handler(connection).pipe(
            // The protocol may end a connection's fiber with the read error as a defect: its cause is looked into.
            Effect.catchCause((cause) => {
              const error = Cause.squash(cause)
              return clientWentAway(error) ? Effect.logDebug("a client went away before its answer", error) : Effect.failCause(cause)
            })
          )
        )
    })
  })
)

/**
 * Serves the handlers (`SupervisorRpcs.toLayer(…)`) on `socket`. A socket file left by a supervisor that died
 * is removed first.
 */
export const ipcServerLayer = <ROut, E, RIn>(socket: string, handlers: Layer.Layer<ROut, E, RIn>) =>
  RpcServer.layer(SupervisorRpcs).pipe(
    Layer.provide(handlers),
    Layer.provide(RpcServer.layerProtocolSocketServer),
    Layer.provide(clientsMayLeave),
    Layer.provide(Layer.unwrap(Effect.sync(() => {
      if (existsSync(socket)) rmSync(socket, { force: true })
      return NodeSocketServer.layer({ path: socket })
    }))),
    Layer.provide(RpcSerialization.layerNdjson)
  )

/** Any failure of a procedure, as it crosses the socket. */
export const remote = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) => toRemoteError(error instanceof ProjectNotFound ? error.asSupervisorAnswer() : error))
