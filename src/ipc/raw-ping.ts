/**
 * A Ping with nothing but `node:net`, for a command that only needs to know whether a supervisor runs and must
 * stay light (`orch status`): true when the socket answers the Ping within `timeoutMs` (by default as long as
 * src/ipc/liveness.ts waits in all: 500 ms, then 1.5 s more). A socket nobody listens on (a killed supervisor, a
 * zombie) refuses at once: false. The message is effect/rpc's socket protocol, as in
 * src/ipc/fast-path.ts; test/ipc/liveness.test.ts checks it against a real supervisor.
 */
import { connect } from "node:net"

export const answersPing = (socket: string, timeoutMs = 2000): Promise<boolean> =>
  new Promise((resolve) => {
    let buffer = ""
    const finish = (answered: boolean) => {
      clearTimeout(timer)
      client.destroy()
      resolve(answered)
    }
    const timer = setTimeout(() => finish(false), timeoutMs)
    const client = connect(socket, () => client.write(`${JSON.stringify({ _tag: "Request", id: "1", tag: "Ping", payload: null, headers: [] })}\n`))
    client.setEncoding("utf8")
    client.on("data", (chunk: string) => {
      buffer += chunk
      const end = buffer.indexOf("\n")
      if (end < 0) return
      try {
        const message = JSON.parse(buffer.slice(0, end)) as { _tag?: string; exit?: { _tag?: string } }
        finish(message._tag === "Exit" && message.exit?._tag === "Success")
      } catch {
        finish(false)
      }
    })
    client.on("error", () => finish(false))
    client.on("close", () => finish(false))
  })
