/**
 * Is a supervisor running? Only its answer says so: one that answers a Ping on its socket within PING_TIMEOUT
 * runs. A socket file with nothing listening (the supervisor was `kill -9`ed; a zombie whose parent never reaps
 * it counts, since its sockets closed when it died), no socket, or a `supervisor.json` naming a process that is
 * gone, is no supervisor: every command then does the work itself. Something that takes the connection but does
 * not answer is neither; commands that would write say so rather than risk a second writer.
 *
 * How long to wait, measured on a 2-core machine (bench/supervisor-ping.mjs, BENCHMARKS.md): a Ping answers in
 * 2-10 ms (p99) when idle; with four CPU-bound processes on those two cores while the supervisor spawns 20
 * sessions and delivers 10 messages, p99 120-330 ms, at most 330 ms; the first Ping the moment a supervisor's
 * socket appears, 120-220 ms. A command's own first Ping costs 35-95 ms more (cold code). So PING_TIMEOUT, 500 ms,
 * for the answer; a socket that took the connection but stayed silent gets one more Ping of PATIENCE (1.5 s)
 * before it is called unresponsive. The dead cases wait for neither: the kernel refuses a connection to a socket
 * nobody listens on at once.
 */
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { existsSync, rmSync } from "node:fs"
import { attempt } from "../store/files.ts"
import { isProcessAlive, isProcessPaused } from "../store/process-liveness.ts"
import { readSupervisorFile, socketPath, stoppingSupervisor, type SupervisorFile, supervisorFilePath } from "../store/supervisor-file.ts"
import { type SupervisorClient, supervisorClient } from "./client.ts"
import type { SupervisorInfo } from "./protocol.ts"
import { unresponsiveMessage } from "./raw-ping.ts"

export const PING_TIMEOUT = Duration.millis(500)
export const PATIENCE = Duration.millis(1500)
/**
 * How long a command waits for a supervisor on its way out: it closed its socket first, then puts back what its
 * admission was starting (a second or two), then lets go of `supervisor.json`. Past this, it is taken for gone (a
 * file of an older orch names no process start time, so a pid reused since would keep a command waiting).
 */
export const STOPPING_WAIT = Duration.seconds(15)
const STOPPING_POLL = Duration.millis(50)

/** How a Ping went; an answer comes with its connection (`C`). */
export type PingOutcome<C = undefined> =
  | { readonly _tag: "Answered"; readonly info: SupervisorInfo; readonly client: C }
  /** No socket, or nobody listening on it: the connection was refused. */
  | { readonly _tag: "Unreachable" }
  /** Connected, but no answer within PING_TIMEOUT. */
  | { readonly _tag: "Silent" }
  /** Connected, but the conversation broke off or made no sense (a supervisor on its way out, another program). */
  | { readonly _tag: "Garbled"; readonly reason: string }

/** What `supervisor.json` and the socket left behind by a supervisor that is gone. */
export interface Leftovers {
  readonly file: SupervisorFile | undefined
  readonly socket: boolean
}

export type SupervisorVerdict<C = undefined> =
  | { readonly _tag: "Running"; readonly info: SupervisorInfo; readonly client: C }
  | { readonly _tag: "Unresponsive"; readonly pid: number | undefined; readonly reason: string }
  | { readonly _tag: "NotRunning"; readonly leftovers: Leftovers }

/**
 * The verdict from the ping, what is on disk, and whether the pid `supervisor.json` names is alive (not a zombie).
 * A broken conversation with a live process is "unresponsive" (it may be stopping, or busy); with no live process
 * it is a dead supervisor's socket.
 */
export const verdict = <C>(ping: PingOutcome<C>, leftovers: Leftovers, pidAlive: boolean): SupervisorVerdict<C> => {
  switch (ping._tag) {
    case "Answered":
      return { _tag: "Running", info: ping.info, client: ping.client }
    case "Silent":
      return { _tag: "Unresponsive", pid: leftovers.file?.pid, reason: `it did not answer within ${Duration.format(Duration.sum(PING_TIMEOUT, PATIENCE))}` }
    case "Garbled":
      return pidAlive ? { _tag: "Unresponsive", pid: leftovers.file?.pid, reason: ping.reason } : { _tag: "NotRunning", leftovers }
    case "Unreachable":
      return { _tag: "NotRunning", leftovers }
  }
}

/** The supervisor is there but does not answer: nothing is sent to it, and nothing is done in its place. */
export class SupervisorUnresponsive extends Schema.TaggedError<SupervisorUnresponsive>()("SupervisorUnresponsive", {
  pid: Schema.optionalKey(Schema.Int),
  socket: Schema.String,
  reason: Schema.String,
  /** Its process is stopped by a signal (Ctrl-Z, `kill -STOP`). */
  paused: Schema.optionalKey(Schema.Boolean)
}) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return unresponsiveMessage(this.pid, this.socket, this.reason, this.paused === true)
  }
}

/** The verdict on the supervisor at `socket`, with the open connection to one that runs. */
export type Connection = SupervisorVerdict<SupervisorClient> & { readonly socket: string }

/** The failure for a supervisor found unresponsive. */
export const unresponsive = (found: Extract<Connection, { readonly _tag: "Unresponsive" }>) =>
  new SupervisorUnresponsive({
    socket: found.socket,
    reason: found.reason,
    ...(found.pid !== undefined ? { pid: found.pid } : {}),
    ...(isProcessPaused(found.pid) ? { paused: true } : {})
  })

const pingOutcome = (error: unknown): PingOutcome<never> => {
  const e = error as { readonly _tag?: string; readonly reason?: { readonly _tag?: string; readonly message?: string }; readonly message?: string }
  if (e._tag === "TimeoutError") return { _tag: "Silent" }
  if (e._tag === "RpcClientError" && e.reason?._tag === "SocketOpenError") return { _tag: "Unreachable" }
  return { _tag: "Garbled", reason: `the connection broke off (${e.reason?._tag ?? e._tag ?? "unknown"})` }
}

/**
 * Asks the supervisor of data directory `root` whether it runs. When it does, the connection stays open (for the
 * caller's scope) and comes with the verdict, so the command goes on over the very connection that answered.
 */
export const connectSupervisor = Effect.fn("Supervisor.connect")(function*(root: string) {
  const socket = socketPath(root)
  // The connection gets a scope of its own: closed at once when nobody answered (else effect/rpc would keep
  // trying to reconnect in the background for as long as the command runs), kept for the caller's scope when
  // the supervisor answered.
  const connection = yield* Scope.fork(yield* Scope.Scope)
  const pingWithin = (timeout: Duration.Duration) =>
    Effect.gen(function*() {
      const client = yield* supervisorClient(socket)
      const info = yield* client.Ping()
      return { client, info }
    }).pipe(Scope.provide(connection), Effect.timeout(timeout))
  const ping = yield* pingWithin(PING_TIMEOUT).pipe(
    Effect.catchTag("TimeoutError", () => pingWithin(PATIENCE)),
    Effect.map(({ client, info }) => ({ _tag: "Answered" as const, info, client })),
    Effect.catch((error) => Effect.succeed(pingOutcome(error)))
  )
  if (ping._tag !== "Answered") yield* Scope.close(connection, Exit.void)
  if (ping._tag === "Unreachable") yield* untilStopped(root)
  const file = readSupervisorFile(root)
  const leftovers: Leftovers = { file, socket: existsSync(socket) }
  const found = verdict<SupervisorClient>(ping, leftovers, file !== undefined && ping._tag === "Garbled" && isProcessAlive(file.pid, file.pidStart))
  return { ...found, socket } satisfies Connection
})

/**
 * A supervisor that refuses connections while `supervisor.json` still names its live process is stopping: taking
 * over now would make a second writer beside it (or join one about to exit). Waits until it has let go, or for
 * STOPPING_WAIT at most, saying so once.
 */
const untilStopped = Effect.fnUntraced(function*(root: string) {
  const stopping = stoppingSupervisor(root)
  if (stopping === undefined) return
  yield* Console.error(`orch: the supervisor (pid ${stopping.pid}) is stopping; waiting for it to finish`)
  const gone = () => readSupervisorFile(root)?.pid !== stopping.pid || !isProcessAlive(stopping.pid, stopping.pidStart)
  yield* Effect.sleep(STOPPING_POLL).pipe(
    Effect.repeat({ until: gone }),
    Effect.timeoutOption(STOPPING_WAIT)
  )
})

/**
 * Removes what a dead supervisor left: its socket file, and `supervisor.json` if it still names the same dead
 * process. Only whoever takes over calls it, holding the supervisor lock, after a fresh verdict of NotRunning.
 */
export const removeLeftovers = (root: string, leftovers: Leftovers) =>
  Effect.andThen(
    leftovers.socket ? attempt(socketPath(root), () => rmSync(socketPath(root), { force: true })) : Effect.void,
    leftovers.file !== undefined && readSupervisorFile(root)?.pid === leftovers.file.pid
      ? attempt(supervisorFilePath(root), () => rmSync(supervisorFilePath(root), { force: true }))
      : Effect.void
  )
