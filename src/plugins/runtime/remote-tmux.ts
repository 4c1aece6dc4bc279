/**
 * tmux on a host, driven through its one connection: the multiplexer's tmux calls, each one script and one round
 * trip. The server listens on `<dataDir>/tmux/default` there (not in /tmp, which hosts clean), with the same
 * cold-socket care as locally: the directory is made 0700 when missing, refused when it is not the host user's or
 * other users can enter it, and a session made is believed once tmux names it back. The agent's environment
 * reaches the host inside the script (stdin) and goes to a 0600 file in that directory which the launch line reads
 * and deletes: no value is on a command line, here or there. Probing all of a host's sessions is one round trip.
 */
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import type { RuntimeHandle } from "../../domain/session.ts"
import { type AttachOptions, type TerminalSize, TerminalUnavailable } from "../../domain/terminal.ts"
import type { HostError } from "../../hosts/errors.ts"
import { dataDirWord } from "../../hosts/headroom.ts"
import type { HostConnectionsShape } from "../../hosts/HostConnections.ts"
import { shellQuote } from "../../process/shell-quote.ts"
import { SHELL_NAME } from "./launch-env.ts"
import { newSessionArgs, NO_SERVER, PANE_FORMAT, panesOf, REAP_FIRST } from "./multiplexer.ts"
import { type LaunchSpec, type Liveness, RuntimeError } from "./Runtime.ts"
import { attachArgs, attachClient } from "./tmux-attach.ts"
import { screenOf, sendConfirmed } from "./tmux-send.ts"

const PLUGIN = "multiplexer"
/** A script's own "cannot go on" exit, its reason on stderr (tmux itself exits 1). */
const REFUSED = 90

/** The tmux socket on a host, as shell text (the host's $HOME expanded there). */
const remoteSocketWord = (dataDir = "~/.orchestrator"): string => `${dataDirWord(dataDir)}/tmux/default`

/** The script lines that make the socket's directory as tmux would, or stop with why it cannot be used. */
const prepareSocketDir = `dir=$(dirname "$sock")
if [ ! -e "$dir" ]; then (umask 077 && mkdir -p "$dir") || { echo "tmux's socket directory $dir cannot be created" >&2; exit ${REFUSED}; }; fi
if [ ! -d "$dir" ]; then echo "tmux cannot use its socket directory $dir: it is not a directory" >&2; exit ${REFUSED}; fi
if [ ! -O "$dir" ]; then echo "tmux cannot use its socket directory $dir: it does not belong to $(id -un)" >&2; exit ${REFUSED}; fi
case $(ls -ld "$dir") in d??????---*) ;; *) echo "tmux cannot use its socket directory $dir: other users have access to it; chmod 700 it" >&2; exit ${REFUSED};; esac
`

const RIDER_START = "@orch-rider"
const RIDER_END = "@orch-rider-end"

export interface ProbedWith {
  readonly liveness: ReadonlyMap<string, Liveness>
  /** What the rider printed. */
  readonly rider: string
}

const requireTmux = `command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed (not found on PATH)" >&2; exit ${REFUSED}; }\n`

/** A word the script gives as it is (a variable), not quoted. */
interface Raw {
  readonly raw: string
}

/** One tmux command line as shell text: `tmux -u -S "$sock" 'a' 'b' …`. */
const tmuxLine = (args: ReadonlyArray<string | Raw>) => `tmux -u -S "$sock" ${args.map((arg) => typeof arg === "string" ? shellQuote(arg) : arg.raw).join(" ")}`

/** `export K='v'` lines for the launch shell to source (names a shell cannot set are left out, as locally). */
const exportLines = (env: Readonly<Record<string, string>>) =>
  Object.entries(env).filter(([key]) => SHELL_NAME.test(key)).map(([key, value]) => `export ${key}=${shellQuote(value)}\n`).join("")

/** The agent's shell: takes its environment from the file named by $1, deletes it, then runs the command. */
const launchScript = (spec: LaunchSpec) =>
  `f=$1; shift; . "$f"; rm -f "$f"; unset f; ${spec.unsetEnv.length > 0 ? `unset ${spec.unsetEnv.join(" ")}; ` : ""}${spec.command}`

/** The lines every tmux script on a host starts with: $sock set, tmux required. */
export const tmuxScriptHead = (dataDir?: string) => `sock=${remoteSocketWord(dataDir)}\n${requireTmux}`

/** A fresh name for the 0600 file that carries a session's environment to its launch shell. */
export const envFileName = () => `env-${randomBytes(6).toString("hex")}`

/**
 * The lines (after `tmuxScriptHead`) that make the session, its environment read from the script's stdin into
 * `envName` in the socket's directory; they print the session's name as tmux gives it back.
 */
export const newSessionLines = (spec: LaunchSpec, envName: string) =>
  `${prepareSocketDir}env_file="$dir"/${envName}
(umask 077 && cat > "$env_file") || exit ${REFUSED}
${
    tmuxLine(newSessionArgs(spec.sessionId, spec.workingDir, [launchScript(spec), "sh", { raw: `"$env_file"` }]))
  } || { status=$?; rm -f "$env_file"; exit $status; }
`

/** The environment as the script's stdin: `export K='v'` lines for the launch shell to source. */
export const environmentInput = (spec: LaunchSpec) => exportLines(spec.env)

/** The handle of a session made on `host`. */
export const remoteHandle = (host: string, sessionId: string, dataDir?: string): RuntimeHandle => ({
  plugin: PLUGIN,
  id: sessionId,
  data: { host, ...(dataDir !== undefined ? { dataDir } : {}) }
})

/** Why a session tmux said it made is not believed. */
export const notMadeReason = (made: string) => `tmux reported the session made, but its server does not have it${made.trim() ? ` (${made.trim()})` : ""}`

/** Names a shell cannot set: not passed to the agent (said at debug level, as locally). */
export const unsettable = (spec: LaunchSpec) => Object.keys(spec.env).filter((key) => !SHELL_NAME.test(key))

export const makeRemoteTmux = (connections: HostConnectionsShape, host: string, dataDir?: string) => {
  const fail = (operation: string, reason: string) => new RuntimeError({ plugin: PLUGIN, operation, reason: `on host ${host}: ${reason}` })
  /** Runs `body` on the host with $sock set; a refusal or a tmux failure (other than "no server") is a RuntimeError. */
  const script = (operation: string, body: string, options: { readonly stdin?: string; readonly noServerOk?: boolean } = {}) =>
    connections.run(host, `${tmuxScriptHead(dataDir)}${body}`, options.stdin !== undefined ? { stdin: options.stdin } : {}).pipe(
      Effect.flatMap((result): Effect.Effect<string, RuntimeError> =>
        result.exitCode === 0 || (options.noServerOk === true && result.exitCode !== REFUSED && NO_SERVER.test(result.stderr))
          ? Effect.succeed(result.exitCode === 0 ? result.stdout : "")
          : Effect.fail(fail(operation, result.stderr.trim().split("\n").at(-1) || `exit ${result.exitCode}`))
      )
    )
  const target = (handle: RuntimeHandle) => `=${handle.id}:`

  const create = Effect.fn("RemoteTmux.create")(function*(spec: LaunchSpec): Effect.fn.Return<RuntimeHandle, RuntimeError | HostError> {
    const skipped = unsettable(spec)
    if (skipped.length > 0) yield* Effect.logDebug(`${spec.sessionId}: not passed to the agent (no shell can set these names): ${skipped.join(", ")}`)
    const envName = envFileName()
    const made = yield* script("new-session", newSessionLines(spec, envName), { stdin: environmentInput(spec) })
    // tmux answers 0 even when its server could not stay up: the session is believed once tmux names it back.
    if (made.trim() !== spec.sessionId) {
      // No shell of the session will read the environment file: it goes now, secrets with it.
      const left = yield* script("new-session", `rm -f "$(dirname "$sock")"/${envName}\n`).pipe(
        Effect.match({ onSuccess: () => "", onFailure: (error) => `; remove ${envName} from its tmux directory there by hand (${error.message})` })
      )
      return yield* fail("new-session", `${notMadeReason(made)}${left}`)
    }
    return remoteHandle(host, spec.sessionId, dataDir)
  })

  const listPanes = (nudge: boolean) =>
    script("list-panes", `${tmuxLine([...(nudge ? REAP_FIRST : []), "list-panes", "-a", "-F", PANE_FORMAT])}\n`, { noServerOk: true })
      .pipe(Effect.map(panesOf))
  const unreaped = (liveness: Liveness | undefined) => liveness?._tag === "Exited" && liveness.exitCode === undefined && liveness.signal === undefined
  const livenessOf = (handles: ReadonlyArray<RuntimeHandle>, panes: ReadonlyMap<string, Liveness>): ReadonlyMap<string, Liveness> =>
    new Map(handles.map((handle): [string, Liveness] => [handle.id, panes.get(handle.id) ?? { _tag: "Gone" }]))

  /** Liveness of every handle on this host: one round trip (a second only when tmux has not reaped a dead pane). */
  const probe = Effect.fn("RemoteTmux.probe")(
    function*(handles: ReadonlyArray<RuntimeHandle>): Effect.fn.Return<ReadonlyMap<string, Liveness>, RuntimeError | HostError> {
      let panes = yield* listPanes(false)
      if (handles.some((handle) => unreaped(panes.get(handle.id)))) panes = yield* listPanes(true)
      return livenessOf(handles, panes)
    }
  )

  /**
   * `probe`, with `rider` (more script lines, for the same host) run in the same round trip before tmux is asked:
   * what it printed comes back with the liveness.
   */
  const probeWith = Effect.fn("RemoteTmux.probeWith")(
    function*(handles: ReadonlyArray<RuntimeHandle>, rider: string): Effect.fn.Return<ProbedWith, RuntimeError | HostError> {
      const result = yield* connections.run(
        host,
        `${tmuxScriptHead(dataDir)}echo ${RIDER_START}\n${rider}echo ${RIDER_END}\n${tmuxLine(["list-panes", "-a", "-F", PANE_FORMAT])}\n`
      )
      const end = result.stdout.indexOf(`${RIDER_END}\n`)
      const start = result.stdout.indexOf(`${RIDER_START}\n`)
      if (start < 0 || end < start) {
        return yield* fail("list-panes", result.stderr.trim().split("\n").at(-1) || `the answer was cut short (exit ${result.exitCode})`)
      }
      const noServer = result.exitCode !== 0 && result.exitCode !== REFUSED && NO_SERVER.test(result.stderr)
      if (result.exitCode !== 0 && !noServer) return yield* fail("list-panes", result.stderr.trim().split("\n").at(-1) || `exit ${result.exitCode}`)
      const riderOut = result.stdout.slice(start + RIDER_START.length + 1, end)
      let panes = panesOf(noServer ? "" : result.stdout.slice(end + RIDER_END.length + 1))
      if (handles.some((handle) => unreaped(panes.get(handle.id)))) panes = yield* listPanes(true)
      return { liveness: livenessOf(handles, panes), rider: riderOut }
    }
  )

  /** Pastes and confirms as locally (src/plugins/runtime/tmux-send.ts); each tmux call one round trip. */
  const send = Effect.fn("RemoteTmux.send")(sendConfirmed({
    screen: (handle) =>
      script("capture-pane", `${tmuxLine(["capture-pane", "-p", "-t", target(handle), ";", "display-message", "-p", "-t", target(handle), "#{cursor_y}"])}\n`)
        .pipe(Effect.map(screenOf)),
    // The message reaches tmux as the script's stdin (a here-document), never on a command line.
    paste: (handle, message) =>
      Effect.gen(function*() {
        const buffer = `orch-${handle.id}-${randomBytes(4).toString("hex")}`
        yield* script(
          "paste-buffer",
          // The here-document ends the message with a newline, which $(cat) drops again (the message has no
          // trailing whitespace of its own: sendConfirmed trims it).
          `printf '%s' "$(cat)" | ${tmuxLine(["load-buffer", "-b", buffer, "-"])} && ${
            tmuxLine(["paste-buffer", "-p", "-d", "-b", buffer, "-t", target(handle)])
          }\n`,
          { stdin: message }
        ).pipe(Effect.asVoid)
      }),
    enter: (handle) => script("send-keys", `${tmuxLine(["send-keys", "-t", target(handle), "Enter"])}\n`).pipe(Effect.asVoid)
  }))

  const capture = Effect.fn("RemoteTmux.capture")(function*(handle: RuntimeHandle, scrollback = 0) {
    return yield* script(
      "capture-pane",
      `${tmuxLine(["capture-pane", "-p", "-J", "-t", target(handle), ...(scrollback > 0 ? ["-S", `-${scrollback}`] : [])])}\n`
    )
  })

  const destroy = Effect.fn("RemoteTmux.destroy")(function*(handle: RuntimeHandle) {
    yield* script("kill-session", `${tmuxLine(["kill-session", "-t", `=${handle.id}`])}\n`, { noServerOk: true })
  })

  const list = Effect.fn("RemoteTmux.list")(function*() {
    const out = yield* script("list-sessions", `${tmuxLine(["list-sessions", "-F", "#{session_name}"])}\n`, { noServerOk: true })
    return out.split("\n").filter(Boolean)
  })

  /** The remote command line of a viewer's tmux client (for `ssh -tt`). */
  const attachCommand = (handle: RuntimeHandle, readOnly: boolean) => `sock=${remoteSocketWord(dataDir)}; exec ${tmuxLine(attachArgs(handle.id, readOnly))}`

  /** A viewer's terminal: its own tmux client on the host, in a terminal through the host's connection (`ssh -tt`). */
  const attach = (handle: RuntimeHandle, size: TerminalSize, options: AttachOptions) =>
    connections.interactive(host, attachCommand(handle, options.readOnly)).pipe(
      Effect.mapError((error) =>
        new TerminalUnavailable({ sessionId: handle.id, reason: `${handle.id} runs on host ${host}, which cannot be reached: ${error.message}` })
      ),
      Effect.flatMap((argv) => attachClient(handle.id, argv[0]!, argv.slice(1), size, options))
    )

  return { name: PLUGIN, host, create, send, probe, probeWith, capture, destroy, list, attach, attachCommand }
}
