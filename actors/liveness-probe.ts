/**
 * The liveness of many sessions at once: local ones through their project's runtime (one call per project), those
 * on other hosts through their host, one round trip per host for all its sessions (of every project), which also
 * brings their new activity lines into the local activity files, and, when due, the minute's headroom and `ps` of
 * the host. A session left out of the answer was not probed (its runtime or host could not answer): it reads
 * `unknown`, never exited. One probe at a time: two would mirror the same lines twice.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import type { OrchestratorConfig } from "../src/config/schema.ts"
import { logsFailure } from "../src/domain/backoff.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { HostConnectionsShape } from "../src/hosts/HostConnections.ts"
import { ProjectPlugins } from "../src/plugins/ProjectPlugins.ts"
import { probeHost } from "../src/plugins/runtime/host-probe.ts"
import type { Liveness } from "../src/plugins/runtime/Runtime.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { HostWatch } from "./host-watch.ts"
import { probeGroups } from "./rules/probe-groups.ts"
import { SessionSizes } from "./session-sizes.ts"
import { WatchedProjects } from "./watched-projects.ts"

export interface Probed {
  /** The records probed (those with a runtime), local ones first. */
  readonly records: ReadonlyArray<SessionRecord>
  /** By session id; a session not in it was not probed. */
  readonly liveness: ReadonlyMap<string, Liveness>
  /** What could not be probed or mirrored, for the probe cycle's failure. */
  readonly failed: ReadonlyArray<{ readonly name: string; readonly reason: string }>
  /** The `ps` of the hosts whose probe carried it. */
  readonly ps: ReadonlyMap<string, string>
}

export interface LivenessProbeShape {
  readonly probe: (records: ReadonlyArray<SessionRecord>) => Effect.Effect<Probed>
}

type Answers = Effect.Effect<Array<[string, Liveness]>>

export class LivenessProbe extends Context.Service<LivenessProbe, LivenessProbeShape>()("orch/actors/LivenessProbe") {
  static readonly layer = Layer.effect(
    LivenessProbe,
    Effect.gen(function*() {
      const configs = yield* ConfigSource
      const plugins = yield* ProjectPlugins
      const store = yield* SessionStore
      const projects = yield* WatchedProjects
      const hostWatch = yield* HostWatch
      const sizes = yield* SessionSizes
      const probing = yield* Semaphore.make(1)
      /** Probe cycles in a row each host failed, while it fails. */
      const unprobedCycles = new Map<string, number>()

      const local = (projectId: string, mine: ReadonlyArray<SessionRecord>): Answers =>
        projects.get(projectId)!.runtime.probe(mine.map((r) => r.runtime!)).pipe(
          Effect.map((answer) => mine.flatMap((r): Array<[string, Liveness]> => answer.has(r.runtime!.id) ? [[r.sessionId, answer.get(r.runtime!.id)!]] : [])),
          // A probe that fails is an observation: its sessions read `unknown` (rules/lifecycle.ts), never dead.
          Effect.orElseSucceed(() => [])
        )

      const answered = (host: string) =>
        Effect.suspend(() => {
          const streak = unprobedCycles.get(host)
          if (streak === undefined) return Effect.void
          unprobedCycles.delete(host)
          return Effect.logInfo(`host ${host}: its sessions answered the probe again after ${streak} failed cycle${streak === 1 ? "" : "s"}`)
        })

      // The host watch tells of the outage (host.down, one notification); the log keeps a few lines of it.
      const unanswered = (host: string, reason: string) =>
        Effect.suspend(() => {
          const streak = (unprobedCycles.get(host) ?? 0) + 1
          unprobedCycles.set(host, streak)
          if (!logsFailure(streak)) return Effect.void
          return Effect.logWarning(
            `host ${host}: its sessions could not be probed, ${streak} cycle${
              streak === 1 ? "" : "s"
            } in a row; they read unknown until it answers; last: ${reason}`
          )
        })

      const remote = (config: OrchestratorConfig, host: string, mine: ReadonlyArray<SessionRecord>, found: Found): Answers => {
        const spec = config.hosts[host]
        const connections = found.connections
        if (spec === undefined || connections === undefined) return Effect.succeed([])
        const sessions = mine.map((r) => ({ projectId: r.projectId, sessionId: r.sessionId, runtime: r.runtime! }))
        return Effect.gen(function*() {
          const headroom = yield* hostWatch.due(host)
          const answer = yield* probeHost(connections, store.paths, host, spec.dataDir, sessions, { headroom, ps: found.psDue })
          if (answer.ps !== undefined) found.ps.set(host, answer.ps)
          if (answer.headroom !== undefined) yield* hostWatch.took(host, answer.headroom)
          yield* answered(host)
          if (answer.mirrorFailed !== undefined) found.failed.push({ name: `host ${host}'s activity`, reason: answer.mirrorFailed })
          return mine.flatMap((r): Array<[string, Liveness]> => answer.liveness.has(r.runtime!.id) ? [[r.sessionId, answer.liveness.get(r.runtime!.id)!]] : [])
        }).pipe(Effect.catch((error) => Effect.as(unanswered(host, error.message), [])))
      }

      const probeNow = Effect.fnUntraced(function*(records: ReadonlyArray<SessionRecord>) {
        const config = yield* configs.current
        const groups = probeGroups(records)
        const found: Found = { failed: [], ps: new Map(), psDue: yield* sizes.due }
        if (groups.remote.size > 0) {
          const connections = yield* Effect.result(plugins.connections(config))
          if (connections._tag === "Failure") found.failed.push({ name: "hosts", reason: connections.failure.message })
          else found.connections = connections.success
        }
        const answers = yield* Effect.all([
          ...[...groups.local].map(([projectId, mine]) => local(projectId, mine)),
          ...[...groups.remote].map(([host, mine]) => remote(config, host, mine, found))
        ], { concurrency: "unbounded" })
        return {
          records: [...[...groups.local.values()].flat(), ...[...groups.remote.values()].flat()],
          liveness: new Map(answers.flat()),
          failed: found.failed,
          ps: found.ps
        }
      })

      return LivenessProbe.of({ probe: (records) => probing.withPermits(1)(probeNow(records)) })
    })
  )
}

/** What one probe round gathers besides liveness. */
interface Found {
  connections?: HostConnectionsShape
  readonly failed: Array<{ readonly name: string; readonly reason: string }>
  readonly ps: Map<string, string>
  readonly psDue: boolean
}
