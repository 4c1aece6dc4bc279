/**
 * Which host a new session goes to: the one named (`orch spawn --host`), or the one `place` picks from each host's
 * headroom, read at the spawn in one round trip per host (all hosts at once). A spawn that fits nowhere fails
 * with every host's figures or reason.
 */
import * as Effect from "effect/Effect"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { hostOf, isEnded, type SessionRecord } from "../domain/session.ts"
import { measureHeadroom } from "../hosts/headroom.ts"
import type { HostConnectionsShape } from "../hosts/HostConnections.ts"
import { describeNowhere, type HostReading, place } from "../hosts/placement.ts"
import { LOCAL } from "../hosts/spec.ts"
import { NoHostFits } from "./errors.ts"

/** Disk a host needs free for a worktree, and the load per CPU above which it takes no new session. */
export const MIN_DISK_MB = 1024
export const MAX_LOAD_PER_CPU = 4

/** Live sessions per host, from the records. */
export const sessionsPerHost = (records: ReadonlyArray<SessionRecord>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const record of records) if (!isEnded(record.status)) counts.set(hostOf(record), (counts.get(hostOf(record)) ?? 0) + 1)
  return counts
}

export const chooseHost = Effect.fn("Sessions.chooseHost")(function*(
  connections: HostConnectionsShape,
  config: OrchestratorConfig,
  project: ProjectConfig,
  records: ReadonlyArray<SessionRecord>,
  forced: string | undefined
) {
  const remote = Object.keys(config.hosts)
  // No hosts configured: every session is local, nothing to measure.
  if (remote.length === 0 && (forced === undefined || forced === LOCAL)) return LOCAL
  const names = [LOCAL, ...remote]
  const measured = names.filter((name) => forced === undefined || name === forced)
  const readings = new Map<string, HostReading>(
    yield* Effect.forEach(measured, (name) =>
      measureHeadroom(connections, name, config.hosts[name]?.dataDir).pipe(
        Effect.map((facts): [string, HostReading] => [name, { _tag: "Measured", facts }]),
        Effect.catch((error) => Effect.succeed<[string, HostReading]>([name, { _tag: "Down", error: error.message }]))
      ), { concurrency: "unbounded" })
  )
  const placement = place(
    names.map((name) => ({ name, ...config.hosts[name] })),
    readings,
    {
      ...(forced !== undefined ? { host: forced } : {}),
      ...(project.hosts !== undefined ? { allowed: project.hosts } : {}),
      ...(project.hostLabels !== undefined ? { labels: project.hostLabels } : {}),
      memoryMb: config.defaults.sessionMemoryMb,
      minDiskMb: MIN_DISK_MB,
      maxLoadPerCpu: MAX_LOAD_PER_CPU,
      sessions: sessionsPerHost(records)
    }
  )
  if ("none" in placement) return yield* new NoHostFits({ reason: describeNowhere(placement.none) })
  return placement.host
})
