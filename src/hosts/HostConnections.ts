/**
 * One OpenSSH connection per host, shared by every command orch sends there: a ControlMaster that persists for a
 * while after its last use (so the CLI and the supervisor share it, and one left by an ended supervisor goes away on
 * its own). A round trip is a shell script on the stdin of `sh -s` through the master: secrets and quoting stay off
 * command lines. The master is made at first use; when it dies (killed, or its host stopped answering) the next
 * round trip makes it again once, and a host that cannot be reached is `Down` (with its last error) while a
 * background fiber reconnects with a capped backoff. `local` is this machine: its scripts run in a local `sh -s`.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { mkdirSync, statSync } from "node:fs"
import { formatSshTarget, LOCAL, type RemoteHost } from "../config/host-spec.ts"
import { exec, type ExecResult } from "../process/exec.ts"
import { ControlDirUnusable, HostConnectionFailed, HostDown, type HostError, HostTimedOut, HostUnknown } from "./errors.ts"
import { controlPath, controlPathProblem, scriptText, sshArgs, type SshMode } from "./ssh-command.ts"
import { classifySshFailure } from "./ssh-failure.ts"
import { runSsh } from "./ssh-process.ts"

/** sshd refuses more than MaxSessions (default 10) channels on one connection: orch keeps below it. */
const MAX_CHANNELS = 8
/**
 * A command still running this long makes orch ask whether its host answers at all (a bare round trip, within
 * BARE_LIMIT): a frozen host is then down after these 5 s, not at the end of the command's own limit.
 */
const SUSPECT_AFTER = Duration.seconds(1)
const BARE_LIMIT = Duration.seconds(4)

/** A reconnect every 1, 2, 4, 8, 16 s, then every 30 s, for as long as the host is down. */
export const reconnectSchedule = (base: Duration.Input = "1 second", cap: Duration.Input = "30 seconds") =>
  Schedule.min([Schedule.exponential(base), Schedule.spaced(cap)])

/**
 * A host that refused us (our key, or its host key is unknown or changed) will not change its mind on its own: its
 * reconnects wait this much longer each, so a fixed config is noticed within minutes while the host's sshd (and a
 * fail2ban there) is not hammered by a login failing every 30 s.
 */
export const REFUSED_RECONNECT_EXTRA = Duration.minutes(5)

const refusedUs = (error: unknown): boolean =>
  error instanceof HostConnectionFailed && ["key-refused", "host-key-unknown", "host-key-changed"].includes(error.problem)

/** `schedule`, each wait REFUSED_RECONNECT_EXTRA longer after a failure in which the host refused us. */
export const patientWithRefusals = <O>(schedule: Schedule.Schedule<O, unknown>) =>
  schedule.pipe(Schedule.addDelay(({ input }) => Effect.succeed(refusedUs(input) ? REFUSED_RECONNECT_EXTRA : Duration.zero)))

export type HostState =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Up"; readonly since: number }
  | { readonly _tag: "Down"; readonly since: number; readonly error: HostConnectionFailed | HostTimedOut; readonly attempts: number }

export interface HostStateChange {
  readonly host: string
  readonly state: HostState
}

export interface RunOptions {
  /** Given to the script as its stdin (with a final newline). */
  readonly stdin?: string
  /** The whole round trip, connecting included; default the service's `timeout`. */
  readonly timeout?: Duration.Input
}

export interface HostConnectionsOptions {
  readonly hosts: ReadonlyArray<RemoteHost>
  /** Where the masters' sockets live (0700): `<data dir>/ssh`. */
  readonly controlDir: string
  /** A round trip's time limit when the caller gives none (default 10 s). */
  readonly timeout?: Duration.Input
  readonly reconnect?: Schedule.Schedule<unknown, unknown>
}

export interface HostConnectionsShape {
  /** Runs `script` with `sh -s` on the host: one round trip through its master. A non-zero exit is a value. */
  readonly run: (host: string, script: string, options?: RunOptions) => Effect.Effect<ExecResult, HostError>
  readonly state: (host: string) => Effect.Effect<HostState, HostUnknown>
  readonly states: Effect.Effect<ReadonlyMap<string, HostState>>
  /** Every Up/Down transition, as it happens. */
  readonly changes: Stream.Stream<HostStateChange>
  /** The pid of the host's master, as `ssh -O check` reports it; undefined when none listens. */
  readonly masterPid: (host: string) => Effect.Effect<number | undefined, HostUnknown>
  /** The ssh command line (argv) of a terminal running `command` on a remote host through its one connection. */
  readonly interactive: (host: string, command: string) => Effect.Effect<ReadonlyArray<string>, HostError>
}

interface Entry {
  readonly host: RemoteHost
  readonly target: string
  readonly path: string
  readonly state: Ref.Ref<HostState>
  readonly establishing: Semaphore.Semaphore
  readonly channels: Semaphore.Semaphore
  /** Whether the host answers a bare round trip now: one check at a time, shared by the commands waiting on it. */
  readonly stillAnswers: Effect.Effect<boolean>
}

/** What reaching a host takes (an entry before its shared check is made). */
type Reach = Omit<Entry, "stillAnswers">

/** The directory of the masters' sockets: made 0700, refused when other users can enter it or it is not ours. */
const ensureControlDir = (dir: string): string | undefined => {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = statSync(dir)
    const uid = process.getuid?.()
    if (uid !== undefined && stat.uid !== uid) return `it belongs to uid ${stat.uid}, not to you (uid ${uid})`
    if ((stat.mode & 0o077) !== 0) return `other users have access to it (mode ${(stat.mode & 0o777).toString(8)}); chmod 700 it`
    return undefined
  } catch (error) {
    return `it cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)})`
  }
}

export class HostConnections extends Context.Service<HostConnections, HostConnectionsShape>()("orch/hosts/HostConnections") {
  static readonly make = Effect.fn("HostConnections.make")(function*(options: HostConnectionsOptions) {
    const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
    const defaultTimeout = Duration.fromInputUnsafe(options.timeout ?? "10 seconds")
    const schedule = patientWithRefusals(options.reconnect ?? reconnectSchedule())
    const remote = options.hosts.filter((host) => host.name !== LOCAL)
    if (remote.length > 0) {
      const problem = ensureControlDir(options.controlDir)
      if (problem !== undefined) return yield* new ControlDirUnusable({ dir: options.controlDir, reason: problem })
    }
    const entries = new Map<string, Entry>()
    for (const host of remote) {
      const path = controlPath(options.controlDir, host)
      const tooLong = controlPathProblem(path)
      if (tooLong !== undefined) return yield* new ControlDirUnusable({ dir: options.controlDir, reason: tooLong })
      const entry: Reach = {
        host,
        target: formatSshTarget(host.spec.ssh),
        path,
        state: yield* Ref.make<HostState>({ _tag: "Unknown" }),
        establishing: yield* Semaphore.make(1),
        channels: yield* Semaphore.make(MAX_CHANNELS)
      }
      entries.set(host.name, { ...entry, stillAnswers: yield* Effect.cachedWithTTL(Effect.suspend(() => answers(entry, BARE_LIMIT)), "1 second") })
    }
    const known = [LOCAL, ...entries.keys()]
    const pubsub = yield* PubSub.unbounded<HostStateChange>()
    yield* Effect.addFinalizer(() => PubSub.shutdown(pubsub))
    const reconnects = yield* FiberMap.make<string>()

    const lookup = (name: string) => {
      const entry = entries.get(name)
      return entry !== undefined ? Effect.succeed(entry) : Effect.fail(new HostUnknown({ host: name, known }))
    }

    /** `effect` within `timeout`, or the host did not answer. */
    const within = (entry: Reach, timeout: Duration.Duration) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.timeoutOrElse({
        duration: timeout,
        orElse: () => Effect.fail(new HostTimedOut({ host: entry.host.name, target: entry.target, seconds: Duration.toSeconds(timeout) }))
      }))

    /** One ssh process, bounded by its caller (`within`). */
    const ssh = (entry: Reach, mode: SshMode, text: string | undefined) =>
      runSsh(sshArgs(entry.host, entry.path, mode), text, mode === "establish").pipe(
        Effect.mapError((reason) => new HostConnectionFailed({ host: entry.host.name, target: entry.target, problem: "other", detail: reason })),
        Effect.provide(context)
      )

    const publish = (entry: Entry, state: HostState) => PubSub.publish(pubsub, { host: entry.host.name, state })

    const markUp = Effect.fnUntraced(function*(entry: Entry) {
      const now = yield* Clock.currentTimeMillis
      const previous = yield* Ref.getAndUpdate(entry.state, (state): HostState => state._tag === "Up" ? state : { _tag: "Up", since: now })
      if (previous._tag !== "Up") yield* publish(entry, { _tag: "Up", since: now })
    })

    /** Records the failure; on the way down, announces it and starts reconnecting. */
    const markDown = (entry: Entry, error: HostConnectionFailed | HostTimedOut): Effect.Effect<void> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const previous = yield* Ref.getAndUpdate(entry.state, (state): HostState =>
          state._tag === "Down" ? { ...state, error, attempts: state.attempts + 1 } : { _tag: "Down", since: now, error, attempts: 1 })
        if (previous._tag !== "Down") {
          yield* publish(entry, { _tag: "Down", since: now, error, attempts: 1 })
          yield* FiberMap.run(reconnects, entry.host.name, reconnect(entry), { onlyIfMissing: true })
        }
      })

    /**
     * Connects through the master, or becomes it, running `text` (by default `:`): while the host is not Up, a
     * caller's own command makes the connection, so the first contact costs no round trip of its own. Once at a time
     * per host; undefined when `unlessUp` and the host is Up. A 255 is the connection's failure when ssh's words say
     * so or no master came of it, else the script's own exit status.
     */
    const establish = (entry: Entry, timeout: Duration.Duration, unlessUp: boolean, text = scriptText(":")) =>
      Effect.gen(function*() {
        if (unlessUp && (yield* Ref.get(entry.state))._tag === "Up") return undefined
        const result = yield* ssh(entry, "establish", text).pipe(within(entry, timeout))
        if (result.exitCode === 255) {
          const failure = classifySshFailure(result.stderr)
          if (failure.problem !== "other" || !(yield* masterRunning(entry))) {
            return yield* new HostConnectionFailed({ host: entry.host.name, target: entry.target, ...failure })
          }
        }
        yield* markUp(entry)
        return result
      }).pipe(entry.establishing.withPermits(1))

    const reconnect = (entry: Entry): Effect.Effect<void> =>
      establish(entry, defaultTimeout, false).pipe(
        Effect.tapError((error) => markDown(entry, error)),
        Effect.retry(schedule),
        // Each failure is already the host's state (Down, with its error and attempts), published to its watchers.
        Effect.ignore
      )

    const masterRunning = (entry: Entry) =>
      ssh(entry, "check", undefined).pipe(
        within(entry, Duration.seconds(5)),
        Effect.map((result) => result.exitCode === 0),
        // A check that cannot run is a master not running: establishing one next says why, if it fails.
        Effect.orElseSucceed(() => false)
      )

    const runRemote = Effect.fnUntraced(function*(entry: Entry, script: string, options: RunOptions) {
      const state = yield* Ref.get(entry.state)
      if (state._tag === "Down") return yield* new HostDown({ host: entry.host.name, lastError: state.error.message })
      const timeout = Duration.fromInputUnsafe(options.timeout ?? defaultTimeout)
      const text = scriptText(script, options.stdin)
      const once = ssh(entry, "run", text).pipe(entry.channels.withPermits(1))
      // The limit is the caller's for the whole round trip: waiting for a channel and reconnecting included.
      const attempt = Effect.gen(function*() {
        const first = yield* establish(entry, timeout, true, text)
        if (first !== undefined) return first
        let result = yield* once
        if (result.exitCode === 255 && !(yield* masterRunning(entry))) {
          // The master is gone (killed, or it gave up on a host that stopped answering): make it again, once.
          yield* establish(entry, timeout, false)
          result = yield* once
        }
        if (result.exitCode === 255) {
          const failure = classifySshFailure(result.stderr)
          // 255 is also a script's own exit status; only ssh's words make it a connection failure.
          if (failure.problem !== "other") return yield* new HostConnectionFailed({ host: entry.host.name, target: entry.target, ...failure })
        }
        return result
      })
      const timed = attempt.pipe(
        within(entry, timeout),
        // One slow command is not a host that stopped answering: it is down only when a bare round trip fails too.
        Effect.tapError((error) =>
          error._tag === "HostTimedOut" ? Effect.flatMap(entry.stillAnswers, (up) => (up ? Effect.void : markDown(entry, error))) : markDown(entry, error)
        )
      )
      if (!Duration.isGreaterThan(timeout, Duration.sum(SUSPECT_AFTER, BARE_LIMIT))) return yield* timed
      // Once the command is late, a host whose master is made (by this process, or by another orch: the supervisor's,
      // one left for ControlPersist) and that no longer answers is down now. A connection still being made is left
      // to ssh's ConnectTimeout.
      const watchdog = Effect.sleep(SUSPECT_AFTER).pipe(
        Effect.andThen(Ref.get(entry.state)),
        Effect.flatMap((now) =>
          now._tag === "Up" ? entry.stillAnswers : Effect.flatMap(masterRunning(entry), (made) => (made ? entry.stillAnswers : Effect.succeed(true)))
        ),
        Effect.flatMap((up) =>
          up
            ? Effect.never
            : Effect.fail(
              new HostTimedOut({ host: entry.host.name, target: entry.target, seconds: Duration.toSeconds(Duration.sum(SUSPECT_AFTER, BARE_LIMIT)) })
            )
        ),
        Effect.tapError((error) => markDown(entry, error))
      )
      return yield* Effect.raceFirst(timed, watchdog)
    })

    /** Whether the host answers a bare round trip within `limit` (outside the channel limit: it asks for one channel more). */
    const answers = (entry: Reach, limit: Duration.Duration) =>
      ssh(entry, "run", scriptText(":")).pipe(
        within(entry, limit),
        Effect.map((result) => result.exitCode === 0),
        Effect.orElseSucceed(() => false)
      )

    const runLocal = (script: string, options: RunOptions) => {
      const timeout = Duration.fromInputUnsafe(options.timeout ?? defaultTimeout)
      return exec("sh", ["-s"], { stdin: scriptText(script, options.stdin), timeout: Duration.sum(timeout, Duration.seconds(5)) }).pipe(
        Effect.mapError((error) => new HostConnectionFailed({ host: LOCAL, target: "this machine", problem: "other", detail: error.message })),
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(new HostTimedOut({ host: LOCAL, target: "this machine", seconds: Duration.toSeconds(timeout) }))
        }),
        Effect.provide(context)
      )
    }

    const run = Effect.fn("HostConnections.run")(function*(host: string, script: string, options: RunOptions = {}) {
      if (host === LOCAL) return yield* runLocal(script, options)
      return yield* runRemote(yield* lookup(host), script, options)
    })

    const state = Effect.fn("HostConnections.state")(function*(host: string) {
      if (host === LOCAL) return { _tag: "Up", since: 0 } satisfies HostState
      return yield* Ref.get((yield* lookup(host)).state)
    })

    const states = Effect.gen(function*() {
      const all = new Map<string, HostState>([[LOCAL, { _tag: "Up", since: 0 }]])
      for (const [name, entry] of entries) all.set(name, yield* Ref.get(entry.state))
      return all as ReadonlyMap<string, HostState>
    })

    const masterPid = Effect.fn("HostConnections.masterPid")(function*(host: string) {
      if (host === LOCAL) return undefined
      const entry = yield* lookup(host)
      const result = yield* ssh(entry, "check", undefined).pipe(within(entry, Duration.seconds(5)), Effect.orElseSucceed(() => undefined))
      const pid = result?.exitCode === 0 ? /pid=(\d+)/.exec(result.stderr)?.[1] : undefined
      return pid !== undefined ? Number(pid) : undefined
    })

    /** The ssh command line of a terminal running `command` on `host`, through its master (made first if need be). */
    const interactive = Effect.fn("HostConnections.interactive")(function*(host: string, command: string) {
      const entry = yield* lookup(host)
      const state = yield* Ref.get(entry.state)
      if (state._tag === "Down") return yield* new HostDown({ host: entry.host.name, lastError: state.error.message })
      yield* establish(entry, defaultTimeout, true).pipe(Effect.tapError((error) => markDown(entry, error)))
      return ["ssh", ...sshArgs(entry.host, entry.path, "interactive", command)] as ReadonlyArray<string>
    })

    return HostConnections.of({ run, state, states, changes: Stream.fromPubSub(pubsub), masterPid, interactive })
  })

  static readonly layer = (options: HostConnectionsOptions) => Layer.effect(HostConnections, HostConnections.make(options))
}
