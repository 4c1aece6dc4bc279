/** The CLI's side of the supervisor socket: the session procedures, run by the supervisor. */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RpcClient, RpcSerialization } from "effect/rpc"
import type { SessionOps } from "../sessions/SessionOps.ts"
import { spawnPayload, SupervisorRpcs } from "./protocol.ts"

export const protocolLayer = (socket: string) =>
  RpcClient.layerProtocolSocket({ retryTransientErrors: false }).pipe(
    Layer.provide(NodeSocket.layerNet({ path: socket })),
    Layer.provide(RpcSerialization.layerNdjson)
  )

/** A client for the supervisor at `socket`; the connection lives as long as the caller's scope. */
export const supervisorClient = (socket: string) =>
  Effect.flatMap(Layer.build(protocolLayer(socket)), (protocol) => RpcClient.make(SupervisorRpcs).pipe(Effect.provide(protocol)))

export const remoteSessions = (socket: string) =>
  Effect.map(supervisorClient(socket), (client): SessionOps => ({
    spawn: (project, target) => client.Spawn(spawnPayload(project, target)),
    batchSpawn: (project, issues, onOutcome) =>
      client.BatchSpawn({ project, issues }).pipe(Effect.tap((outcomes) => Effect.forEach(outcomes, onOutcome, { discard: true }))),
    send: (sessionId, message) => client.Send({ sessionId, message }),
    kill: (sessionId) => client.Kill({ sessionId }),
    restore: (sessionId) => client.Restore({ sessionId }),
    cleanup: (options) => client.Cleanup(options),
    remove: (sessionId) => client.Remove({ sessionId }),
    prune: (options) => client.Prune(options)
  }))
