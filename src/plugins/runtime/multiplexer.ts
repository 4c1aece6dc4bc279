/**
 * Runtime `multiplexer`: each session is a detached tmux session named after it, so agents outlive orch.
 * Every tmux call has a timeout and runs in UTF-8 mode (`-u`), whatever the caller's locale: without it tmux
 * shows a TUI's box-drawing characters (and tabs) as "_". The server socket is tmux's default (honouring TMUX_TMPDIR) unless
 * ORCH_TMUX_SOCKET names one, and is passed explicitly so every orch process talks to the same server (see
 * tmux-socket.ts for why its directory is made here). A created session is checked to exist before it is reported.
 */
import * as Effect from "effect/Effect"
import { ChildProcessSpawner } from "effect/process"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import type { RuntimeHandle } from "../../domain/session.ts"
import { exec, type ExecOptions } from "../../process/exec.ts"
import { atCrashPoint } from "../../store/crash-points.ts"
import { isProcessAlive, processStartTime } from "../../store/process-liveness.ts"
import { type EnvFile, launchLine, removeEnvFile, writeEnvFile } from "./launch-env.ts"
import { type LaunchSpec, type Liveness, RuntimeError, type RuntimeShape } from "./Runtime.ts"
import { attachTmux } from "./tmux-attach.ts"
import { screenOf, sendConfirmed } from "./tmux-send.ts"
import { ensureSocketDir, socketDirProblem } from "./tmux-socket.ts"

const PLUGIN = "multiplexer"
const ENV_READ_TIMEOUT_S = 10
const ENV_READ_POLL_INTERVAL = "10 millis"
const ENV_READ_POLLS = ENV_READ_TIMEOUT_S * 100

/**
 * What tmux says when there is nothing to act on: no server, no such session, or (a server exiting after its last
 * session was killed) "no current target".
 */
export const NO_SERVER = /no server running|error connecting to|No such file or directory|can't find session|session not found|no current target/i

/** What `list-panes -a -F` prints per pane: session, dead, last activity (s), exit status, signal. */
export const PANE_FORMAT = "#{session_name} #{pane_dead} #{window_activity} #{pane_dead_status} #{pane_dead_signal} #{pane_pid}"

/**
 * tmux commands that make the server reap its children before the next command runs. tmux before 3.6, built with
 * libutempter (Debian's and Ubuntu's are), can lose a pane's SIGCHLD: when the pane's terminal closes before its
 * process is reaped, tmux removes the utmp record through a helper while libutempter's own SIGCHLD handler is in
 * place, and the pane's signal goes to that handler (tmux issue 4559, fixed in 3.6 by a SIGCHLD of its own). The
 * pane is then dead, its process a zombie and its status unknown until tmux reaps again; a job of its own
 * (`run-shell true`, which waits for the job) makes it reap.
 */
export const REAP_FIRST = ["run-shell", "true", ";"] as const

/** `list-panes -a` lines (PANE_FORMAT) by session: its first pane. */
export const panesOf = (stdout: string): Map<string, Liveness> => {
  const panes = new Map<string, Liveness>()
  for (const line of stdout.split("\n")) {
    const [name, dead, activity, status, signal, pid] = line.split(" ")
    if (name === undefined || name === "" || panes.has(name)) continue
    const seconds = Number(activity)
    panes.set(
      name,
      dead !== "1" ?
        {
          _tag: "Alive",
          ...(activity && Number.isFinite(seconds) ? { lastOutputAt: seconds * 1000 + 999 } : {}),
          ...(pid && /^\d+$/.test(pid) ? { pid: Number(pid) } : {})
        } :
        {
          _tag: "Exited",
          ...(status ? { exitCode: Number(status) } : {}),
          ...(signal ? { signal: Number(signal) } : {})
        }
    )
  }
  return panes
}

/**
 * One tmux command line that makes session `sessionId` running `/bin/sh -c <shell…>` in `workingDir`, keeps its
 * pane when the agent exits (its status stays readable), and says the session's name back (`answer`, a tmux format
 * starting with it): tmux answers 0 even when its server could not stay up, so a session is believed only once
 * named. Here and on a host (remote-tmux.ts).
 */
export const newSessionArgs = <A>(
  sessionId: string,
  workingDir: string,
  shell: ReadonlyArray<string | A>,
  answer = "#{session_name}"
): Array<string | A> => [
  "new-session",
  "-d",
  "-s",
  sessionId,
  "-c",
  workingDir,
  "-x",
  "200",
  "-y",
  "50",
  "--",
  "/bin/sh",
  "-c",
  ...shell,
  ";",
  "set-option",
  "-w",
  "-t",
  `=${sessionId}:`,
  "remain-on-exit",
  "on",
  ";",
  "display-message",
  "-p",
  "-t",
  `=${sessionId}:`,
  answer
]

/**
 * The process the session's pane runs (the agent's shell, which ends with the agent) as its handle keeps it: its pid,
 * and its start time where the system tells it, so that `orch status` can tell a gone agent without asking tmux.
 */
const agentProcess = (pid: string | undefined) => {
  if (pid === undefined || !/^\d+$/.test(pid)) return {}
  const startTime = processStartTime(Number(pid))
  return { pid: Number(pid), ...(startTime !== undefined ? { pidStart: startTime } : {}) }
}

/** The tmux socket a `multiplexer` session was made on, as its handle records it. */
export const socketOf = (handle: RuntimeHandle): string | undefined =>
  handle.plugin === PLUGIN && typeof handle.data.socket === "string" ? handle.data.socket : undefined

export const makeMultiplexer = Effect.fnUntraced(function*(socket: string) {
  const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
  const tmux = (operation: string, args: ReadonlyArray<string>, options: ExecOptions = {}) =>
    exec("tmux", ["-u", "-S", socket, ...args], { timeout: "5 seconds", ...options }).pipe(
      Effect.mapError((error) => new RuntimeError({ plugin: PLUGIN, operation, reason: error.reason })),
      Effect.provide(context)
    )
  const tmuxOk = (operation: string, args: ReadonlyArray<string>, options: ExecOptions = {}) =>
    tmux(operation, args, options).pipe(
      Effect.flatMap((result) =>
        result.exitCode === 0
          ? Effect.succeed(result.stdout)
          : Effect.fail(new RuntimeError({ plugin: PLUGIN, operation, reason: result.stderr.trim() || `exit ${result.exitCode}` }))
      )
    )
  const target = (handle: RuntimeHandle) => `=${handle.id}:`

  const create = Effect.fn("Runtime.multiplexer.create")(function*(spec: LaunchSpec) {
    const dir = ensureSocketDir(socket)
    if (dir._tag !== "Ready") return yield* new RuntimeError({ plugin: PLUGIN, operation: "new-session", reason: socketDirProblem(dir) })
    // The environment goes through a file the launch line reads and deletes: `-e KEY=value` would show secrets in `ps`.
    const envFile = yield* Effect.try({
      try: () => writeEnvFile(spec.env, spec.sessionId, spec.workingDir),
      catch: (error) =>
        new RuntimeError({
          plugin: PLUGIN,
          operation: "new-session",
          reason: `cannot write the agent's environment file in ${tmpdir()}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`
        })
    })
    if (envFile.skipped.length > 0) {
      yield* Effect.logDebug(`${spec.sessionId}: not passed to the agent (no shell can set these names): ${envFile.skipped.join(", ")}`)
    }
    return yield* launch(spec, envFile).pipe(Effect.ensuring(Effect.sync(() => removeEnvFile(envFile))))
  })

  const launch = Effect.fnUntraced(function*(spec: LaunchSpec, envFile: EnvFile) {
    // tmux answers 0 even when its server could not stay up: the session is believed once tmux names it back.
    yield* atCrashPoint("tmux new-session: before")
    const made = yield* tmuxOk(
      "new-session",
      newSessionArgs(spec.sessionId, spec.workingDir, [launchLine(envFile, spec.unsetEnv, spec.command)], "#{session_name} #{pane_pid}")
    )
    yield* atCrashPoint("tmux new-session: after")
    const [name, pid] = made.trim().split(" ")
    if (name !== spec.sessionId) {
      return yield* new RuntimeError({
        plugin: PLUGIN,
        operation: "new-session",
        reason: `tmux reported the session made, but its server on ${socket} does not have it${made.trim() ? ` (${made.trim()})` : ""}`
      })
    }
    const handle = { plugin: PLUGIN, id: spec.sessionId, data: { socket, ...agentProcess(pid) } } satisfies RuntimeHandle
    // Started means the shell took its environment (and deleted the file): a shell that never does is not left running.
    for (let poll = 0; poll < ENV_READ_POLLS && existsSync(envFile.dir); poll++) yield* Effect.sleep(ENV_READ_POLL_INTERVAL)
    if (existsSync(envFile.dir)) {
      yield* destroy(handle).pipe(Effect.ignore({ log: "Warn" }))
      return yield* new RuntimeError({
        plugin: PLUGIN,
        operation: "new-session",
        reason: `the agent's shell did not start within ${ENV_READ_TIMEOUT_S} s of tmux making its session; the session was ended`
      })
    }
    return handle
  })

  const screen = (handle: RuntimeHandle) =>
    tmuxOk("capture-pane", ["capture-pane", "-p", "-t", target(handle), ";", "display-message", "-p", "-t", target(handle), "#{cursor_y}"])
      .pipe(Effect.map(screenOf))

  const send = Effect.fn("Runtime.multiplexer.send")(sendConfirmed({
    screen,
    paste: (handle, message) =>
      Effect.gen(function*() {
        const buffer = `orch-${handle.id}-${Date.now().toString(36)}`
        yield* tmuxOk("load-buffer", ["load-buffer", "-b", buffer, "-"], { stdin: message })
        yield* tmuxOk("paste-buffer", ["paste-buffer", "-p", "-d", "-b", buffer, "-t", target(handle)])
      }),
    enter: (handle) => tmuxOk("send-keys", ["send-keys", "-t", target(handle), "Enter"])
  }))

  const capture = (handle: RuntimeHandle, scrollback = 0) =>
    tmuxOk("capture-pane", ["capture-pane", "-p", "-J", "-t", target(handle), ...(scrollback > 0 ? ["-S", `-${scrollback}`] : [])])

  const listPanes = (nudge: boolean) =>
    tmux("list-panes", [
      // A dead pane without its status: tmux lost the SIGCHLD (REAP_FIRST says how) and reaps now.
      ...(nudge ? REAP_FIRST : []),
      // window_activity: when the pane last printed anything, in whole seconds; taken as the end of that second.
      "list-panes",
      "-a",
      "-F",
      PANE_FORMAT
    ]).pipe(Effect.flatMap((result) =>
      result.exitCode !== 0 && !NO_SERVER.test(result.stderr)
        ? Effect.fail(new RuntimeError({ plugin: PLUGIN, operation: "list-panes", reason: result.stderr.trim() }))
        : Effect.succeed(panesOf(result.stdout))
    ))

  const probe = Effect.fn("Runtime.multiplexer.probe")(function*(handles: ReadonlyArray<RuntimeHandle>) {
    let panes = yield* listPanes(false)
    const unreaped = (liveness: Liveness | undefined) => liveness?._tag === "Exited" && liveness.exitCode === undefined && liveness.signal === undefined
    if (handles.some((handle) => unreaped(panes.get(handle.id)))) panes = yield* listPanes(true)
    return new Map(handles.map((handle): [string, Liveness] => [handle.id, panes.get(handle.id) ?? { _tag: "Gone" }]))
  })

  const destroy = Effect.fn("Runtime.multiplexer.destroy")(function*(handle: RuntimeHandle) {
    yield* atCrashPoint("tmux kill-session: before")
    const result = yield* tmux("kill-session", ["kill-session", "-t", `=${handle.id}`])
    if (result.exitCode !== 0 && !NO_SERVER.test(result.stderr)) {
      return yield* new RuntimeError({ plugin: PLUGIN, operation: "kill-session", reason: result.stderr.trim() })
    }
    yield* atCrashPoint("tmux kill-session: after")
  })

  const list = Effect.fn("Runtime.multiplexer.list")(function*() {
    const result = yield* tmux("list-sessions", ["list-sessions", "-F", "#{session_name}"])
    if (result.exitCode !== 0 && !NO_SERVER.test(result.stderr)) {
      return yield* new RuntimeError({ plugin: PLUGIN, operation: "list-sessions", reason: result.stderr.trim() })
    }
    return result.stdout.split("\n").filter(Boolean)
  })

  // The agent's process as tmux named it at its start (`agentProcess`), identified by its start time: no fork.
  const running = (handle: RuntimeHandle) =>
    Effect.sync(() => typeof handle.data.pid === "number" && typeof handle.data.pidStart === "string" && isProcessAlive(handle.data.pid, handle.data.pidStart))

  return { name: PLUGIN, create, send, capture, probe, running, list, attach: attachTmux(socket), destroy } satisfies RuntimeShape
})
