/**
 * What `orch attach <session>` does (src/cli/attach.ts loads it when the command runs): opens the session's terminal here, from any directory. It needs only the record: a tmux
 * session is attached on the socket the record names (nested in another tmux server, or switched to in the same
 * one); a session that ended, a terminal that is gone and the `process` runtime (whose pty the supervisor owns)
 * each get one sentence instead.
 */
import * as Effect from "effect/Effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { join } from "node:path"
import { LOCAL } from "../config/host-spec.ts"
import { Host } from "../config/host.ts"
import { isEnded, type RuntimeHandle, type SessionRecord } from "../domain/session.ts"
import { HostConnections } from "../hosts/HostConnections.ts"
import { makeRemoteTmux } from "../plugins/runtime/remote-tmux.ts"
import { defaultTmuxSocket } from "../plugins/runtime/tmux-socket.ts"
import { exec } from "../process/exec.ts"
import { dataDir } from "../store/paths.ts"
import { SessionStore } from "../store/SessionStore.ts"

export class AttachRefused extends Schema.TaggedError<AttachRefused>()("AttachRefused", {
  reason: Schema.String,
  exitCode: Schema.Int
}) {
  override get [Runtime.errorExitCode]() {
    return this.exitCode
  }
  override get message() {
    return this.reason
  }
}

const TmuxData = Schema.Struct({ socket: Schema.String })
const decodeTmuxData = Schema.decodeUnknownOption(TmuxData)

export type AttachPlan =
  | { readonly _tag: "Refuse"; readonly reason: string; readonly exitCode: number }
  /** Ask tmux on `socket` whether session `target` is alive, then attach to it. */
  | { readonly _tag: "Tmux"; readonly socket: string; readonly target: string }
  /** The same on another host, through its connection (`ssh -tt`). */
  | { readonly _tag: "Remote"; readonly host: string; readonly handle: RuntimeHandle }

const restoreHint = (id: string) => `\`orch session restore ${id}\` starts it again`

/** What attaching to `record` means, before tmux is asked anything. Pure. */
export const attachPlan = (record: SessionRecord, terminal: boolean, fallbackSocket: string): AttachPlan => {
  const id = record.sessionId
  if (isEnded(record.status) || record.runtime === null) {
    return { _tag: "Refuse", reason: `session ${id} has ended (${record.status}), so it has no terminal; ${restoreHint(id)}`, exitCode: 1 }
  }
  if (record.runtime.plugin === "process") {
    return {
      _tag: "Refuse",
      reason:
        `session ${id} runs in the supervisor's process runtime, which has no terminal to attach to; watch and type to it on the dashboard (orch start prints its address)`,
      exitCode: 1
    }
  }
  if (record.runtime.plugin !== "multiplexer") {
    return {
      _tag: "Refuse",
      reason: `session ${id} runs in the ${record.runtime.plugin} runtime, which orch attach cannot open; watch it on the dashboard`,
      exitCode: 1
    }
  }
  if (!terminal) {
    return {
      _tag: "Refuse",
      reason: `attach needs a terminal, and this is not one (no TTY); run it in a terminal, or watch ${id} on the dashboard`,
      exitCode: 2
    }
  }
  if (record.host !== undefined && record.host !== LOCAL) return { _tag: "Remote", host: record.host, handle: record.runtime }
  const data = decodeTmuxData(record.runtime.data)
  return { _tag: "Tmux", socket: data._tag === "Some" ? data.value.socket : fallbackSocket, target: record.runtime.id }
}

/** The tmux command that opens `target` from a client in `env`: switch inside the same server, else attach (nested if need be). */
export const tmuxAttachCommand = (socket: string, target: string, env: Readonly<Record<string, string | undefined>>) => {
  const inSameServer = env.TMUX !== undefined && env.TMUX.split(",")[0] === socket
  const { TMUX: _outer, ...rest } = env
  return {
    args: ["-S", socket, inSameServer ? "switch-client" : "attach-session", "-t", `=${target}`],
    env: inSameServer ? env : rest
  }
}

const liveness = Effect.fnUntraced(function*(socket: string, target: string, sessionId: string) {
  const answer = yield* exec("tmux", ["-S", socket, "display-message", "-p", "-t", `=${target}:`, "#{session_name} #{pane_dead}"], {
    timeout: "5 seconds",
    stdin: ""
  }).pipe(
    Effect.mapError((error) => new AttachRefused({ reason: `cannot ask tmux about session ${sessionId}: ${error.reason}`, exitCode: 1 }))
  )
  // tmux may answer 0 with nothing for a session it does not have: only its name in the answer counts.
  const [name, dead] = answer.stdout.trim().split(" ")
  if (answer.exitCode !== 0 || name !== target) {
    return yield* new AttachRefused({
      reason: `session ${sessionId}'s terminal is gone (tmux on ${socket} has no session ${target}); ${restoreHint(sessionId)}`,
      exitCode: 1
    })
  }
  if (dead === "1") {
    return yield* new AttachRefused({ reason: `session ${sessionId}'s agent has exited; ${restoreHint(sessionId)}`, exitCode: 1 })
  }
})

/** Opens session `session`'s terminal in this one. */
export const attachTerminal = Effect.fn("cli.attachTerminal")(function*(session: string) {
  const host = yield* Host
  const record = yield* SessionStore.use((store) => store.read(session)).pipe(Effect.provide(SessionStore.layer))
  const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true
  const plan = attachPlan(record, terminal, defaultTmuxSocket(host.env))
  if (plan._tag === "Refuse") return yield* new AttachRefused({ reason: plan.reason, exitCode: plan.exitCode })
  if (plan._tag === "Remote") return yield* attachRemote(session, plan.host, plan.handle)
  yield* liveness(plan.socket, plan.target, session)
  const command = tmuxAttachCommand(plan.socket, plan.target, host.env)
  yield* runClient(session, "tmux", command.args, command.env)
})

/** Runs the client in this terminal until it ends; a client that fails says so, its own message above. */
const runClient = Effect.fnUntraced(function*(session: string, file: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const code = yield* spawner.exitCode(ChildProcess.make(file, args, {
    env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    extendEnv: false,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit"
  })).pipe(Effect.mapError((error) => new AttachRefused({ reason: `cannot run ${file} to attach to ${session}: ${error.message}`, exitCode: 1 })))
  if (Number(code) !== 0) {
    return yield* new AttachRefused({ reason: `${file} could not attach to ${session} (exit ${Number(code)}); its message is above`, exitCode: 1 })
  }
})

/** A session on another host: its tmux there, through the host's one connection (shared with a running supervisor). */
const attachRemote = Effect.fnUntraced(function*(session: string, hostName: string, handle: RuntimeHandle) {
  const host = yield* Host
  const { loadConfig } = yield* Effect.promise(() => import("../config/load.ts"))
  const config = yield* loadConfig().pipe(Effect.mapError((error) => new AttachRefused({ reason: error.message, exitCode: 2 })))
  const spec = config.hosts[hostName]
  if (spec === undefined) {
    return yield* new AttachRefused({
      reason: `session ${session} runs on host ${hostName}, which the config no longer names; add it back under hosts`,
      exitCode: 1
    })
  }
  const refused = (reason: string) => new AttachRefused({ reason: `cannot reach host ${hostName} to attach to ${session}: ${reason}`, exitCode: 1 })
  yield* Effect.scoped(Effect.gen(function*() {
    const connections = yield* HostConnections.make({ hosts: [{ name: hostName, spec }], controlDir: join(dataDir(host), "ssh") }).pipe(
      Effect.mapError((error) => refused(error.message))
    )
    const tmux = makeRemoteTmux(connections, hostName, spec.dataDir)
    const state = (yield* tmux.probe([handle]).pipe(Effect.mapError((error) => refused(error.message)))).get(handle.id)
    if (state?._tag !== "Alive") {
      return yield* new AttachRefused({
        reason: state?._tag === "Exited"
          ? `session ${session}'s agent has exited; ${restoreHint(session)}`
          : `session ${session}'s terminal is gone (tmux on host ${hostName} has no session ${handle.id}); ${restoreHint(session)}`,
        exitCode: 1
      })
    }
    const argv = yield* connections.interactive(hostName, tmux.attachCommand(handle, false)).pipe(Effect.mapError((error) => refused(error.message)))
    yield* runClient(session, argv[0]!, argv.slice(1), host.env)
  }))
})
