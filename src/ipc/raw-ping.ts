/**
 * A Ping with nothing but `node:net`, for a command that only needs to know whether a supervisor runs, and which,
 * and must stay light (`orch status`): the pid the supervisor answers with (and the projects and config it serves), when it answers within `timeoutMs` (by
 * default as long as src/ipc/liveness.ts waits in all: 500 ms, then 1.5 s more). A socket nobody listens on (a
 * killed supervisor, a zombie) refuses at once: undefined. The message is effect/rpc's socket protocol, as in
 * src/ipc/fast-path.ts; test/ipc/fast-path.test.ts checks it against a real supervisor.
 */
import { existsSync } from "node:fs"
import { connect } from "node:net"

/** What a supervisor answers: who it is, the projects it serves (their ids) and its config file. */
export interface PingAnswer {
  readonly pid: number
  readonly projects?: ReadonlyArray<string>
  readonly configPath?: string
}

const answerOf = (value: { pid?: unknown; projects?: unknown; configPath?: unknown } | undefined): PingAnswer | undefined => {
  if (typeof value?.pid !== "number") return undefined
  const projects = Array.isArray(value.projects) && value.projects.every((id) => typeof id === "string") ? value.projects as Array<string> : undefined
  return {
    pid: value.pid,
    ...(projects !== undefined ? { projects } : {}),
    ...(typeof value.configPath === "string" ? { configPath: value.configPath } : {})
  }
}

/** How long a command waits for a supervisor that took its connection to answer, in all (src/ipc/liveness.ts). */
export const ANSWER_WAIT_MS = 2000

/**
 * What a command says of a supervisor that holds its socket but does not answer (`SupervisorUnresponsive` in
 * src/ipc/liveness.ts): nothing is sent to it, and nothing is done in its place.
 */
export const unresponsiveMessage = (pid: number | undefined, socket: string, reason: string): string => {
  const who = pid === undefined ? "a process" : `the supervisor (pid ${pid})`
  const stop = pid === undefined ? `remove ${socket}` : `stop it with \`kill ${pid}\``
  return `${who} holds ${socket} but ${reason}; try again in a moment, or ${stop} and run \`orch start\` again`
}

export const pingSupervisor = (socket: string, timeoutMs = ANSWER_WAIT_MS): Promise<PingAnswer | undefined> =>
  // No socket file, no supervisor: nothing to connect to (a connection would only be refused a turn later).
  !existsSync(socket) ? Promise.resolve(undefined) : new Promise((resolve) => {
    let buffer = ""
    const finish = (answer: PingAnswer | undefined) => {
      clearTimeout(timer)
      client.destroy()
      resolve(answer)
    }
    const timer = setTimeout(() => finish(undefined), timeoutMs)
    const client = connect(socket, () => client.write(`${JSON.stringify({ _tag: "Request", id: "1", tag: "Ping", payload: null, headers: [] })}\n`))
    client.setEncoding("utf8")
    client.on("data", (chunk: string) => {
      buffer += chunk
      const end = buffer.indexOf("\n")
      if (end < 0) return
      try {
        const message = JSON.parse(buffer.slice(0, end)) as {
          _tag?: string
          exit?: { _tag?: string; value?: { pid?: unknown; projects?: unknown; configPath?: unknown } }
        }
        finish(message._tag === "Exit" && message.exit?._tag === "Success" ? answerOf(message.exit.value) : undefined)
      } catch {
        finish(undefined)
      }
    })
    client.on("error", () => finish(undefined))
    client.on("close", () => finish(undefined))
  })
