/**
 * The supervisor's watch over its remote hosts: once a minute every host's headroom (read by the probe of a host
 * with sessions, riding its round trip; one command for each other host, all at once), and at once every change its
 * connection sees (a round trip that failed, a reconnect). Each is a step of
 * src/hosts/host-watch.ts; news is recorded (`host.down`, `host.up`), a host going down is one urgent
 * notification, and every round leaves `hosts.json` for `orch hosts` and `orch status`.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { newNotification } from "../src/domain/notification.ts"
import type { ControlDirUnusable } from "../src/hosts/errors.ts"
import { type HostFacts, measureHeadroom } from "../src/hosts/headroom.ts"
import { type HostObservation, HostsFile, type HostView, watchHost } from "../src/hosts/host-watch.ts"
import type { HostConnectionsShape } from "../src/hosts/HostConnections.ts"
import { ProjectPlugins } from "../src/plugins/ProjectPlugins.ts"
import type { StoreError } from "../src/store/errors.ts"
import { EventLog, type EventLogShape } from "../src/store/EventLog.ts"
import { writeFileAtomic } from "../src/store/files.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { NotifierRouter, type NotifierRouterShape } from "./notifier-router.ts"

export const HOST_READ_INTERVAL = Duration.minutes(1)
/** A reading this close to due is taken by a probe cycle (5 s apart) rather than waiting for the round. */
const DUE_SLACK = Duration.seconds(5)

export interface HostWatchDeps {
  readonly events: EventLogShape
  readonly router: Pick<NotifierRouterShape, "notify">
  /** The remote hosts of the config in force, and their one connection each. */
  readonly hosts: Effect.Effect<Readonly<Record<string, { readonly dataDir?: string }>>>
  readonly connections: Effect.Effect<HostConnectionsShape, ControlDirUnusable>
  readonly hostsFile: string
}

const encode = Schema.encodeSync(Schema.fromJsonString(HostsFile))

export const makeHostWatch = Effect.fnUntraced(function*(deps: HostWatchDeps): Effect.fn.Return<HostWatchShape, never, Scope.Scope> {
  const views = new Map<string, HostView>()
  /** One follower of connection changes per hosts config (a reload with other hosts gets its own). */
  const followers = yield* FiberMap.make<string>()

  const observe = Effect.fnUntraced(function*(host: string, observation: HostObservation) {
    const { next, news } = watchHost(host, views.get(host), observation, yield* Clock.currentTimeMillis)
    views.set(host, next)
    if (news === undefined) return
    yield* deps.events.append({
      type: news.type,
      message: news.message,
      data: { host, ...(news.type === "host.up" ? { downForMs: news.downForMs } : { error: next.lastError }) }
    })
    if (news.type === "host.down") {
      yield* deps.router.notify(
        yield* newNotification({ type: "host.down", priority: "urgent", title: `host ${host} cannot be reached`, message: news.message })
      )
    }
  })

  const write = Effect.fnUntraced(function*(hosts: ReadonlyArray<string>) {
    const file = {
      writtenAt: yield* Clock.currentTimeMillis,
      pid: process.pid,
      hosts: Object.fromEntries(hosts.flatMap((host) => views.has(host) ? [[host, views.get(host)!]] : []))
    }
    yield* writeFileAtomic(deps.hostsFile, `${encode(file)}\n`)
  })

  const follow = (connections: HostConnectionsShape) =>
    Stream.runForEach(
      connections.changes,
      (change) =>
        observe(change.host, change.state._tag === "Down" ? { _tag: "Failed", error: change.state.error.message } : { _tag: "Answered" }).pipe(
          Effect.andThen(Effect.suspend(() => write([...views.keys()])))
        )
    )

  /** Whether `host`'s minute reading is due (a probe of it then carries the headroom script: no round trip of its own). */
  const due = Effect.fnUntraced(function*(host: string) {
    const readAt = views.get(host)?.readAt
    return readAt === undefined || (yield* Clock.currentTimeMillis) - readAt >= Duration.toMillis(Duration.subtract(HOST_READ_INTERVAL, DUE_SLACK))
  })

  /** One round: every host of the config in force not read by a probe this minute, read at once; then hosts.json. */
  const round = Effect.fn("HostWatch.round")(function*() {
    const specs = yield* deps.hosts
    const hosts = Object.keys(specs)
    if (hosts.length === 0) return
    const connections = yield* deps.connections
    const key = JSON.stringify(specs)
    if (!(yield* FiberMap.has(followers, key))) {
      yield* FiberMap.clear(followers)
      yield* FiberMap.run(followers, key, follow(connections))
    }
    const unread = yield* Effect.filter(hosts, due)
    const readings = yield* Effect.forEach(unread, (host) =>
      measureHeadroom(connections, host, specs[host]?.dataDir).pipe(
        Effect.map((facts): HostObservation => ({ _tag: "Read", facts })),
        Effect.catch((error) => Effect.succeed<HostObservation>({ _tag: "Failed", error: error.message }))
      ), { concurrency: "unbounded" })
    for (const [i, host] of unread.entries()) yield* observe(host, readings[i]!)
    yield* write(hosts)
  })

  return {
    round,
    due,
    /** A reading a probe brought (its figures, or why they could not be read), taken as the round's would be. */
    took: (host: string, headroom: HostFacts | string) =>
      observe(
        host,
        typeof headroom === "string" ? { _tag: "Failed", error: `orch could not read host ${host}'s headroom: ${headroom}` } : { _tag: "Read", facts: headroom }
      ),
    views: Effect.sync(() => new Map(views) as ReadonlyMap<string, HostView>)
  }
})

export interface HostWatchShape {
  /** One round: every host of the config in force not read by a probe this minute, read at once; then hosts.json. */
  readonly round: () => Effect.Effect<void, ControlDirUnusable | StoreError>
  /** Whether `host`'s minute reading is due (a probe of it then carries the headroom script). */
  readonly due: (host: string) => Effect.Effect<boolean>
  /** A reading a probe brought (its figures, or why they could not be read), taken as the round's would be. */
  readonly took: (host: string, headroom: HostFacts | string) => Effect.Effect<void, StoreError>
  /** Each host as last seen. */
  readonly views: Effect.Effect<ReadonlyMap<string, HostView>>
}

export class HostWatch extends Context.Service<HostWatch, HostWatchShape>()("orch/actors/HostWatch") {
  /** The watch over the hosts of the config in force, through their connections; hosts.json in the data directory. */
  static readonly layer = Layer.effect(
    HostWatch,
    Effect.gen(function*() {
      const configs = yield* ConfigSource
      const plugins = yield* ProjectPlugins
      const store = yield* SessionStore
      return yield* makeHostWatch({
        events: yield* EventLog,
        router: yield* NotifierRouter,
        hosts: Effect.map(configs.current, (config) => config.hosts),
        connections: Effect.flatMap(configs.current, plugins.connections),
        hostsFile: store.paths.hosts
      })
    })
  )
}
