/**
 * The supervisor's watch over its remote hosts: once a minute every host's headroom (one command per host, all at
 * once), and at once every change its connection sees (a round trip that failed, a reconnect). Each is a step of
 * src/hosts/host-watch.ts; news is recorded (`host.down`, `host.up`), a host going down is one urgent
 * notification, and every round leaves `hosts.json` for `orch hosts` and `orch status`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { newNotification } from "../src/domain/notification.ts"
import type { ControlDirUnusable } from "../src/hosts/errors.ts"
import { measureHeadroom } from "../src/hosts/headroom.ts"
import { type HostObservation, HostsFile, type HostView, watchHost } from "../src/hosts/host-watch.ts"
import type { HostConnectionsShape } from "../src/hosts/HostConnections.ts"
import type { EventLogShape } from "../src/store/EventLog.ts"
import { writeFileAtomic } from "../src/store/files.ts"
import type { NotifierRouterShape } from "./notifier-router.ts"

export const HOST_READ_INTERVAL = "1 minute"

export interface HostWatchDeps {
  readonly events: EventLogShape
  readonly router: Pick<NotifierRouterShape, "notify">
  /** The remote hosts of the config in force, and their one connection each. */
  readonly hosts: Effect.Effect<Readonly<Record<string, { readonly dataDir?: string }>>>
  readonly connections: Effect.Effect<HostConnectionsShape, ControlDirUnusable>
  readonly hostsFile: string
}

const encode = Schema.encodeSync(Schema.fromJsonString(HostsFile))

export const makeHostWatch = Effect.fnUntraced(function*(deps: HostWatchDeps) {
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
        yield* newNotification({ type: "host.down", priority: "urgent", title: `host ${host} is not answering`, message: news.message })
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

  /** One round: every host of the config in force read at once, then hosts.json. */
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
    const readings = yield* Effect.forEach(hosts, (host) =>
      measureHeadroom(connections, host, specs[host]?.dataDir).pipe(
        Effect.map((facts): HostObservation => ({ _tag: "Read", facts })),
        Effect.catch((error) => Effect.succeed<HostObservation>({ _tag: "Failed", error: error.message }))
      ), { concurrency: "unbounded" })
    for (const [i, host] of hosts.entries()) yield* observe(host, readings[i]!)
    yield* write(hosts)
  })

  return { round, views: Effect.sync(() => new Map(views) as ReadonlyMap<string, HostView>) }
})
