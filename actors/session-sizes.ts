/**
 * The supervisor's measure of its sessions, once a minute at a probe cycle: one `ps` per host with live sessions
 * (on a host it rides that cycle's probe; this machine's runs locally), each session's agent process tree summed from the pid the
 * cycle's probe gave, the figure per agent plugin moved (src/domain/session-size.ts) and written to
 * session-sizes.json, where admission reads the expected size of one more session.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { type AgentSize, nextSizes, parsePs, treeRssOf } from "../src/domain/session-size.ts"
import { ProjectPlugins } from "../src/plugins/ProjectPlugins.ts"
import { PS_COMMAND } from "../src/plugins/runtime/host-probe.ts"
import type { StoreError } from "../src/store/errors.ts"
import { readSessionSizes, writeSessionSizes } from "../src/store/session-sizes-file.ts"
import { SessionStore } from "../src/store/SessionStore.ts"

export const SIZE_SAMPLE_INTERVAL = Duration.minutes(1)

/** A live session as the last probe saw it: its agent plugin, its host, and the process its runtime started there. */
export interface SizedSession {
  readonly agent: string
  readonly host: string
  readonly pid: number
}

export interface SessionSizesDeps {
  /** The data directory (session-sizes.json). */
  readonly root: string
  /** `ps -e -o pid=,ppid=,rss=` of a host (`local`: this machine). */
  readonly ps: (host: string) => Effect.Effect<string, { readonly message: string }>
}

export const makeSessionSizes = Effect.fnUntraced(function*(deps: SessionSizesDeps): Effect.fn.Return<SessionSizesShape> {
  const sizes = yield* Ref.make<Readonly<Record<string, AgentSize>>>(readSessionSizes(deps.root))
  const lastSample = yield* Ref.make<number | undefined>(undefined)

  /** Whether a sample is due: at the first call, then SIZE_SAMPLE_INTERVAL apart. */
  const due = Effect.gen(function*() {
    const last = yield* Ref.get(lastSample)
    return last === undefined || (yield* Clock.currentTimeMillis) - last >= Duration.toMillis(SIZE_SAMPLE_INTERVAL)
  })

  /**
   * Measures `live` (what a probe cycle found alive, on any host) when a sample is due; a host's `ps` is taken from
   * `read` when the cycle's probe brought it, else asked. Nothing is read or written while no session runs.
   */
  const sample = Effect.fn("SessionSizes.sample")(
    function*(
      live: ReadonlyArray<SizedSession>,
      read: ReadonlyMap<string, string> = new Map()
    ): Effect.fn.Return<void, StoreError | { readonly message: string }> {
      if (live.length === 0 || !(yield* due)) return
      const now = yield* Clock.currentTimeMillis
      yield* Ref.set(lastSample, now)
      const hosts = [...new Set(live.map((session) => session.host))]
      const perHost = yield* Effect.forEach(hosts, (host) =>
        (read.has(host) ? Effect.succeed(read.get(host)!) : deps.ps(host)).pipe(
          Effect.map((text) => {
            const treeRss = treeRssOf(parsePs(text))
            return live.filter((session) => session.host === host).flatMap(({ agent, pid }) => {
              const bytes = treeRss(pid)
              return bytes === undefined ? [] : [{ agent, bytes }]
            })
          }),
          // A host that cannot answer now (the host watch says so) is measured at the next minute.
          Effect.catch((error) => Effect.as(Effect.logDebug(`session sizes: host ${host} not measured (${error.message})`), []))
        ), { concurrency: "unbounded" })
      const samples = perHost.flat()
      if (samples.length === 0) return
      const next = nextSizes(yield* Ref.get(sizes), samples)
      yield* Ref.set(sizes, next)
      yield* writeSessionSizes(deps.root, { at: new Date(now).toISOString(), agents: next })
    }
  )

  return { due, sample, sizes: Ref.get(sizes) }
})

export interface SessionSizesShape {
  /** Whether a sample is due: at the first call, then SIZE_SAMPLE_INTERVAL apart. */
  readonly due: Effect.Effect<boolean>
  /** Measures what a probe cycle found alive when a sample is due (a host's `ps` from `read` when its probe brought it). */
  readonly sample: (live: ReadonlyArray<SizedSession>, read?: ReadonlyMap<string, string>) => Effect.Effect<void, StoreError | { readonly message: string }>
  /** Each agent plugin's figures as last moved. */
  readonly sizes: Effect.Effect<Readonly<Record<string, AgentSize>>>
}

export class SessionSizes extends Context.Service<SessionSizes, SessionSizesShape>()("orch/actors/SessionSizes") {
  /** The sizes of the sessions of the config in force: a host's `ps` through its connection. */
  static readonly layer = Layer.effect(
    SessionSizes,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const configs = yield* ConfigSource
      const plugins = yield* ProjectPlugins
      return yield* makeSessionSizes({
        root: store.paths.root,
        ps: (host) =>
          configs.current.pipe(
            Effect.flatMap(plugins.connections),
            Effect.flatMap((connections) => connections.run(host, PS_COMMAND)),
            Effect.flatMap((result) => result.exitCode === 0 ? Effect.succeed(result.stdout) : Effect.fail({ message: `ps failed: ${result.stderr.trim()}` }))
          )
      })
    })
  )
}
