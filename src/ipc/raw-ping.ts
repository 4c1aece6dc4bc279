/**
 * A Ping with nothing but `node:net`, for a command that only needs to know whether a supervisor runs, and which,
 * and must stay light (`orch status`): the pid the supervisor answers with (and the projects and config it serves), when it answers within `timeoutMs` (by
 * default as long as src/ipc/liveness.ts waits in all: 500 ms, then 1.5 s more). A socket nobody listens on (a
 * killed supervisor, a zombie) refuses at once: undefined. The message is effect/rpc's socket protocol, as in
 * src/ipc/fast-path.ts; test/ipc/fast-path.test.ts checks it against a real supervisor.
 */
import { existsSync } from "node:fs"
import { connect } from "node:net"
import { isProcessPaused } from "../store/process-liveness.ts"

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
 * src/ipc/liveness.ts): nothing is sent to it, and nothing is done in its place. `paused`: its process is stopped
 * by a signal (isProcessPaused).
 */
export const unresponsiveMessage = (pid: number | undefined, socket: string, reason: string, paused = false): string => {
  // A paused process takes no `kill` (SIGTERM waits until it goes on): it is told what does.
  if (paused && pid !== undefined) {
    return `the supervisor (pid ${pid}) is paused (stopped by Ctrl-Z or \`kill -STOP\`), so it holds ${socket} but ${reason}; ` +
      `\`kill -CONT ${pid}\` lets it go on, or \`kill -9 ${pid}\` and \`orch start\` replace it`
  }
  const who = pid === undefined ? "a process" : `the supervisor (pid ${pid})`
  const stop = pid === undefined ? `remove ${socket}` : `stop it with \`kill ${pid}\``
  return `${who} holds ${socket} but ${reason}; try again in a moment, or ${stop} and run \`orch start\` again`
}

/** What a command that only reads says of a supervisor on its way out (its socket closed, its process still there). */
export const stoppingMessage = (pid: number): string =>
  `the supervisor (pid ${pid}) is stopping: the starts it had under way go back to the queue, and \`orch start\` starts a new one once it has gone`

/** What a command says of the supervisor `pid` at `socket` when it took the connection and did not answer in time. */
export const unansweredMessage = (pid: number | undefined, socket: string): string =>
  unresponsiveMessage(pid, socket, `it did not answer within ${ANSWER_WAIT_MS / 1000}s`, isProcessPaused(pid))

/**
 * How a light Ping went: answered; `Silent`, something took the connection but did not answer within the time (a
 * supervisor stopped or stuck); or `Absent`, nothing there (no socket, refused, or hung up without an answer).
 */
export type PingResult = { readonly _tag: "Answered"; readonly answer: PingAnswer } | { readonly _tag: "Silent" } | { readonly _tag: "Absent" }

const ABSENT: PingResult = { _tag: "Absent" }

export const pingResult = (socket: string, timeoutMs = ANSWER_WAIT_MS): Promise<PingResult> =>
  // No socket file, no supervisor: nothing to connect to (a connection would only be refused a turn later).
  !existsSync(socket) ? Promise.resolve(ABSENT) : new Promise((resolve) => {
    let buffer = ""
    const finish = (result: PingResult) => {
      clearTimeout(timer)
      client.destroy()
      resolve(result)
    }
    const answered = (answer: PingAnswer | undefined) => finish(answer === undefined ? ABSENT : { _tag: "Answered", answer })
    const timer = setTimeout(() => finish({ _tag: "Silent" }), timeoutMs)
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
        answered(message._tag === "Exit" && message.exit?._tag === "Success" ? answerOf(message.exit.value) : undefined)
      } catch {
        finish(ABSENT)
      }
    })
    client.on("error", () => finish(ABSENT))
    client.on("close", () => finish(ABSENT))
  })

/** The supervisor's answer to a light Ping, or undefined when none answered (pingResult says which way). */
export const pingSupervisor = (socket: string, timeoutMs = ANSWER_WAIT_MS): Promise<PingAnswer | undefined> =>
  pingResult(socket, timeoutMs).then((result) => (result._tag === "Answered" ? result.answer : undefined))
