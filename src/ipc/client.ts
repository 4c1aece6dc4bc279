/** The CLI's side of the supervisor socket: the session procedures, run by the supervisor. */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RpcClient, RpcSerialization } from "effect/rpc"
import { RpcClientError } from "effect/rpc/RpcClientError"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
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

export type SupervisorClient = Effect.Success<ReturnType<typeof supervisorClient>>

/** The connection to the supervisor broke before it answered: the command may or may not have been carried out. */
export class SupervisorLost extends Schema.TaggedError<SupervisorLost>()("SupervisorLost", { detail: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `lost the connection to the supervisor before it answered (${this.detail}); \`orch status\` shows what was done`
  }
}

/** A call's transport failure (the socket closed, the answer made no sense) as SupervisorLost; its own failures pass. */
export const answered = <A, E, R>(call: Effect.Effect<A, E | RpcClientError, R>): Effect.Effect<A, E | SupervisorLost, R> =>
  Effect.catchIf(
    call,
    (error): error is RpcClientError => error instanceof RpcClientError,
    (error) => Effect.fail(new SupervisorLost({ detail: error.reason._tag }))
  )

export const remoteSessions = (client: SupervisorClient): SessionOps => ({
  spawn: (project, target) => answered(client.Spawn(spawnPayload(project, target))),
  batchSpawn: (project, issues, onOutcome) =>
    answered(client.BatchSpawn({ project, issues })).pipe(Effect.tap((outcomes) => Effect.forEach(outcomes, onOutcome, { discard: true }))),
  send: (sessionId, message) => answered(client.Send({ sessionId, message })),
  kill: (sessionId) => answered(client.Kill({ sessionId })),
  restore: (sessionId) => answered(client.Restore({ sessionId })),
  cleanup: (options) => answered(client.Cleanup(options)),
  remove: (sessionId) => answered(client.Remove({ sessionId })),
  prune: (options) => answered(client.Prune(options)),
  queueAdd: (project, issues, priority) => answered(client.QueueAdd({ project, issues, priority })),
  queueTask: (project, task, priority) => answered(client.QueueTask({ project, task, priority })),
  queueList: () => answered(client.QueueList()),
  queueRemove: (ref) => answered(client.QueueRemove({ ref }))
})
