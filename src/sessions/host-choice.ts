/**
 * Which host a new session goes to: the one named (`orch spawn --host`), or the one `place` picks from each host's
 * headroom, read at the spawn in one round trip per host (all hosts at once), less what the sessions placed there and
 * not yet in its figures reserve (`reserved`: src/domain/reservation.ts). A batch reads once and places each issue in
 * turn (`placeMany`). A spawn that fits nowhere fails with every host's figures or reason.
 */
import * as Effect from "effect/Effect"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { reservedPerHost } from "../domain/reservation.ts"
import { holdsASlot, hostOf, type SessionRecord } from "../domain/session.ts"
import { measureHeadroom } from "../hosts/headroom.ts"
import type { HostView } from "../hosts/host-watch.ts"
import type { HostConnectionsShape } from "../hosts/HostConnections.ts"
import { describeNowhere, type HostReading, place, placeMany, type Placement, type PlacementRequest } from "../hosts/placement.ts"
import { originOf } from "../plugins/workspace/remote-workspace.ts"
import { NoHostFits, UnknownHost } from "./errors.ts"

/** Disk a host needs free for a worktree, and the load per CPU above which it takes no new session. */
export const MIN_DISK_MB = 1024
export const MAX_LOAD_PER_CPU = 4

/** Sessions per host whose agent may be running (what a host's maxSessions counts), from the records. */
export const sessionsPerHost = (records: ReadonlyArray<SessionRecord>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const record of records) if (holdsASlot(record)) counts.set(hostOf(record), (counts.get(hostOf(record)) ?? 0) + 1)
  return counts
}

/** Whether placement has anything to decide: with no hosts configured every session is local. */
const localOnly = (config: OrchestratorConfig, forced: string | undefined) =>
  Object.keys(config.hosts).length === 0 && (forced === undefined || forced === LOCAL)

const hostsOf = (config: OrchestratorConfig) => [LOCAL, ...Object.keys(config.hosts)].map((name) => ({ name, ...config.hosts[name] }))

/** Each host's headroom now (only `forced`'s when one is named), all at once; a host that cannot answer is Down. */
const readHeadroom = Effect.fnUntraced(function*(connections: HostConnectionsShape, config: OrchestratorConfig, forced: string | undefined) {
  const measured = hostsOf(config).map((host) => host.name).filter((name) => forced === undefined || name === forced)
  return new Map<string, HostReading>(
    yield* Effect.forEach(measured, (name) =>
      measureHeadroom(connections, name, config.hosts[name]?.dataDir).pipe(
        Effect.map((facts): [string, HostReading] => [name, { _tag: "Measured", facts }]),
        Effect.catch((error) => Effect.succeed<[string, HostReading]>([name, { _tag: "Down", error: error.message }]))
      ), { concurrency: "unbounded" })
  )
})

/** The project's origin as its checkout names it (one local git call), or undefined when it has none. */
const originOrNone = (connections: HostConnectionsShape, project: ProjectConfig) =>
  originOf(connections, project).pipe(Effect.map((url): string | undefined => url), Effect.orElseSucceed(() => undefined))

/**
 * The hosts a project's session cannot go to with the reason, whatever their figures: those held back for the project
 * (a spawn there failed: src/domain/holds.ts), and every remote one when the project's checkout has no `origin` (a
 * host gets the code from origin).
 */
const excludedHosts = (config: OrchestratorConfig, origin: string | undefined, held: ReadonlyMap<string, string>): ReadonlyMap<string, string> =>
  new Map([
    ...held,
    ...(origin !== undefined
      ? []
      : Object.keys(config.hosts).map((name) => [name, "the project's checkout has no origin remote, which a host gets the code from"] as const))
  ])

const requestFor = (
  config: OrchestratorConfig,
  project: ProjectConfig,
  records: ReadonlyArray<SessionRecord>,
  reserved: ReadonlyArray<SessionRecord>,
  forced: string | undefined,
  excluded?: ReadonlyMap<string, string>
): PlacementRequest => ({
  ...(excluded !== undefined && excluded.size > 0 ? { excluded } : {}),
  ...(forced !== undefined ? { host: forced } : {}),
  ...(project.hosts !== undefined ? { allowed: project.hosts } : {}),
  ...(project.hostLabels !== undefined ? { labels: project.hostLabels } : {}),
  memoryMb: config.defaults.sessionMemoryMb,
  minDiskMb: MIN_DISK_MB,
  maxLoadPerCpu: MAX_LOAD_PER_CPU,
  sessions: sessionsPerHost(records),
  reserved: reservedPerHost(reserved)
})

/** The host a session goes to, with orch's data dir there when its reading named it (the spawn then need not ask). */
export interface HostChoice {
  readonly host: string
  readonly dataDir?: string
  /** Hosts placement could not read (down), each with why: the user hears they were left out. */
  readonly unread?: ReadonlyArray<string>
  /** The project's origin, read for placement: where a session on another host gets the code (not asked again). */
  readonly origin?: string
}

const LOCAL_CHOICE: HostChoice = { host: LOCAL }

const choiceOf = (
  placement: Placement,
  readings: ReadonlyMap<string, HostReading>,
  origin: string | undefined
): Effect.Effect<HostChoice, NoHostFits> => {
  if ("none" in placement) return Effect.fail(new NoHostFits({ reason: describeNowhere(placement.none) }))
  const reading = readings.get(placement.host)
  const dataDir = reading?._tag === "Measured" ? reading.facts.dataDir : undefined
  const unread = [...readings].flatMap(([host, r]) => r._tag === "Down" ? [`host ${host} was left out: ${r.error}`] : [])
  return Effect.succeed({
    host: placement.host,
    ...(dataDir !== undefined ? { dataDir } : {}),
    ...(unread.length > 0 ? { unread } : {}),
    ...(origin !== undefined && placement.host !== LOCAL ? { origin } : {})
  })
}

export const chooseHost = Effect.fn("Sessions.chooseHost")(function*(
  connections: HostConnectionsShape,
  config: OrchestratorConfig,
  project: ProjectConfig,
  records: ReadonlyArray<SessionRecord>,
  reserved: ReadonlyArray<SessionRecord>,
  forced: string | undefined,
  held: ReadonlyMap<string, string> = new Map()
) {
  if (forced !== undefined && forced !== LOCAL && config.hosts[forced] === undefined) {
    return yield* new UnknownHost({ host: forced, known: project.hosts ?? [LOCAL, ...Object.keys(config.hosts)] })
  }
  if (localOnly(config, forced)) return LOCAL_CHOICE
  const [readings, origin] = yield* Effect.all([readHeadroom(connections, config, forced), originOrNone(connections, project)], { concurrency: "unbounded" })
  const request = requestFor(config, project, records, reserved, forced, excludedHosts(config, origin, held))
  return yield* choiceOf(place(hostsOf(config), readings, request), readings, origin)
})

/** The hosts of `count` new sessions of one batch, in order: one reading per host for them all. */
export const chooseHosts = Effect.fn("Sessions.chooseHosts")(function*(
  connections: HostConnectionsShape,
  config: OrchestratorConfig,
  project: ProjectConfig,
  records: ReadonlyArray<SessionRecord>,
  reserved: ReadonlyArray<SessionRecord>,
  count: number,
  held: ReadonlyMap<string, string> = new Map()
) {
  if (localOnly(config, undefined) || count === 0) {
    return Array.from({ length: count }, (): Effect.Effect<HostChoice, NoHostFits> => Effect.succeed(LOCAL_CHOICE))
  }
  const [readings, origin] = yield* Effect.all([readHeadroom(connections, config, undefined), originOrNone(connections, project)], { concurrency: "unbounded" })
  const request = requestFor(config, project, records, reserved, undefined, excludedHosts(config, origin, held))
  return placeMany(hostsOf(config), readings, request, count).map((placement) => choiceOf(placement, readings, origin))
})

/** A host as the host watch last saw it (hosts.json), as placement reads it. */
const readingOf = (view: HostView | undefined): HostReading =>
  view === undefined
    ? { _tag: "Unmeasured" }
    : view.status === "down"
    ? { _tag: "Down", error: view.lastError ?? "it does not answer" }
    : view.headroom !== undefined
    // hosts.json leaves out a tmux that is not installed; placement's facts say so with `undefined`.
    ? { _tag: "Measured", facts: { ...view.headroom, tmux: view.headroom.tmux } }
    : { _tag: "Unmeasured" }

/**
 * What admission places on when hosts are configured: this machine's headroom read now, and each remote host's as
 * the supervisor's host watch last read it (`views`, at most a minute old). Read once per admission round.
 */
export const admissionReadings = Effect.fn("Sessions.admissionReadings")(function*(
  connections: HostConnectionsShape,
  config: OrchestratorConfig,
  views: ReadonlyMap<string, HostView>
) {
  const local = (yield* readHeadroom(connections, config, LOCAL)).get(LOCAL) ?? { _tag: "Unmeasured" }
  return new Map<string, HostReading>([[LOCAL, local], ...Object.keys(config.hosts).map((name) => [name, readingOf(views.get(name))] as const)])
})

/**
 * Why no host could take a new session of `project` on `readings` (admissionReadings), or undefined when one could;
 * the sessions a host's figures do not include yet (`reserved`) count against it, as they do at the spawn. Admission's
 * machine budget when hosts are configured; the spawn itself still reads its host fresh.
 */
export const placementBlocker = (
  config: OrchestratorConfig,
  project: ProjectConfig,
  records: ReadonlyArray<SessionRecord>,
  reserved: ReadonlyArray<SessionRecord>,
  readings: ReadonlyMap<string, HostReading>,
  held: ReadonlyMap<string, string> = new Map()
): string | undefined => {
  const placement = place(hostsOf(config), readings, requestFor(config, project, records, reserved, undefined, held))
  return "none" in placement ? describeNowhere(placement.none) : undefined
}
