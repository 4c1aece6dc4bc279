/** A server of the supervisor (the dashboard, a terminal socket) that cannot listen, named by its config key; and trying a port first (`orch doctor`). */
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { createServer } from "node:net"

export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  /** The config key that sets the port: `port`, `terminalPort`, `directTerminalPort`. */
  option: Schema.String,
  host: Schema.String,
  port: Schema.Int,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `cannot listen on ${this.host}:${this.port} (${this.option}): ${this.reason}`
  }
}

/** Why listening failed, in words, with what to do where the user can do something. */
export const listenReason = (error: unknown, option: string): string => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === "EADDRINUSE") return `the port is in use by another program; set \`${option}:\` in orchestrator.yaml to a free port`
  if (code === "EACCES") return `this user may not listen on that port; set \`${option}:\` in orchestrator.yaml to one above 1023`
  if (code === "EADDRNOTAVAIL") return "this machine has no such address; set `host:` in orchestrator.yaml to one of its own"
  return (error as Error | undefined)?.message ?? String(error)
}

/** Whether `host:port` can be listened on now: undefined if so, else why not (it is let go at once). */
export const canListen = (host: string, port: number, option: string) =>
  Effect.callback<string | undefined>((resume) => {
    const server = createServer()
    server.once("error", (error) => resume(Effect.succeed(listenReason(error, option))))
    server.listen(port, host, () => server.close(() => resume(Effect.succeed(undefined))))
  })
