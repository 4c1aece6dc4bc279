/**
 * `orch hosts [--json]`: every host sessions may run on (this machine is `local`), whether it answers and since
 * when, its headroom, its sessions (of its maxSessions), labels and last error. With a supervisor running, as its
 * host watch last saw them (hosts.json, at most a minute old); without one, read now, one command per host, all at
 * once.
 */
import { Command, Flag } from "effect/cli"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { join } from "node:path"
import type { HostView } from "../hosts/host-watch.ts"

export const hosts = Command.make(
  "hosts",
  { json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON")) },
  Effect.fn("cli.hosts")(function*({ json }) {
    const [{ loadConfig }, { SessionStore }, { socketPath }, { pingSupervisor }, { HostConnections }, { measureHeadroom }, { readHostsFile, watchHost }] =
      yield* Effect.promise(() =>
        Promise.all([
          import("../config/load.ts"),
          import("../store/SessionStore.ts"),
          import("../store/supervisor-file.ts"),
          import("../ipc/raw-ping.ts"),
          import("../hosts/HostConnections.ts"),
          import("../hosts/headroom.ts"),
          import("../hosts/host-watch.ts")
        ])
      )
    const [{ activeHolds }, { readHolds }, { table }, { holdLines, HOST_HEADER, hostCells, hostRows }] = yield* Effect.promise(() =>
      Promise.all([import("../domain/holds.ts"), import("../store/holds-file.ts"), import("./format.ts"), import("./hosts-view.ts")])
    )
    const config = yield* loadConfig()
    const { records, paths } = yield* SessionStore.use((store) => Effect.map(store.list, (list) => ({ ...list, paths: store.paths }))).pipe(
      Effect.provide(SessionStore.layer)
    )
    const supervisor = yield* Effect.promise(() => pingSupervisor(socketPath(paths.root)))
    const file = supervisor !== undefined ? readHostsFile(paths.hosts, supervisor.pid) : undefined
    if (file !== undefined && Result.isFailure(file)) {
      yield* Console.error(`orch: warning: ${paths.hosts} cannot be read (${file.failure}); reading the hosts now`)
    }
    const fromSupervisor = file !== undefined && Result.isSuccess(file) ? file.success : undefined
    const now = yield* Clock.currentTimeMillis
    // This machine is read now either way; the others as the supervisor saw them, or now.
    const readNow = ["local", ...(fromSupervisor === undefined ? Object.keys(config.hosts) : [])]
    const views = new Map<string, HostView>(Object.entries(fromSupervisor?.hosts ?? {}))
    yield* Effect.scoped(Effect.gen(function*() {
      const connections = yield* HostConnections.make({
        hosts: Object.entries(config.hosts).map(([name, spec]) => ({ name, spec })),
        controlDir: join(paths.root, "ssh")
      })
      const read = yield* Effect.forEach(readNow, (host) =>
        measureHeadroom(connections, host, config.hosts[host]?.dataDir).pipe(
          Effect.map((facts) => watchHost(host, undefined, { _tag: "Read", facts }, now).next),
          Effect.catch((error) => Effect.succeed(watchHost(host, undefined, { _tag: "Failed", error: error.message }, now).next))
        ), { concurrency: "unbounded" })
      readNow.forEach((host, i) => views.set(host, read[i]!))
    }))
    const rows = hostRows(config.hosts, views, records)
    const holds = activeHolds(
      yield* readHolds(paths.root).pipe(Effect.catch((error) => Effect.as(Console.error(`orch: warning: ${error.message}`), []))),
      now
    )
    if (json) {
      return yield* Console.log(
        JSON.stringify(
          rows.map(({ view, ...row }) => {
            const held = holds.filter((hold) => hold.host === row.host).map(({ project, reason, since, retryAt }) => ({ project, reason, since, retryAt }))
            return { ...row, ...(view?.headroom !== undefined ? { headroom: view.headroom } : {}), ...(held.length > 0 ? { leftOutFor: held } : {}) }
          }),
          null,
          2
        )
      )
    }
    yield* Console.log(table(HOST_HEADER, rows.map(hostCells)))
    for (const line of holdLines(holds, now)) yield* Console.log(line)
    if (Object.keys(config.hosts).length === 0) {
      yield* Console.log("No other hosts are configured: every session runs here. Add some under `hosts:` (docs/scale-out.md).")
    } else if (fromSupervisor !== undefined) {
      yield* Console.log(`Other hosts as the supervisor saw them ${Math.max(0, Math.round((now - fromSupervisor.writtenAt) / 1000))} s ago.`)
    }
  })
).pipe(Command.withDescription("List the hosts sessions can run on: reachable or not, headroom, sessions and the last error"))
