/**
 * Where a new session goes: a pure decision on measured figures. A host qualifies when the project may use it (its
 * `hosts` list and `hostLabels`), it is up and measured, has tmux, is under its `maxSessions`, has the memory
 * reserve of one more session (less what sessions its figures do not include yet reserved), disk for a
 * worktree, and is not overloaded; the one with the most memory left after the reserve wins (then the lower load per
 * CPU, then the name). A spawn that fits nowhere gets every host's reason.
 */
import type { HostFacts } from "./headroom.ts"

export interface PlacementHost {
  readonly name: string
  readonly maxSessions?: number
  readonly labels?: ReadonlyArray<string>
}

export type HostReading =
  | { readonly _tag: "Measured"; readonly facts: HostFacts }
  | { readonly _tag: "Down"; readonly error: string }
  | { readonly _tag: "Unmeasured" }

export interface PlacementRequest {
  /** A host named by the user (`orch spawn --host`): that one or none, still within the project's rules. */
  readonly host?: string
  /** The project's `hosts` list; all hosts when absent. */
  readonly allowed?: ReadonlyArray<string>
  /** The project's `hostLabels`: a host needs every one. */
  readonly labels?: ReadonlyArray<string>
  /** Memory reserved per session (`defaults.sessionMemoryMb`). */
  readonly memoryMb: number
  readonly minDiskMb: number
  /** Above this 1-minute load per CPU a host takes no new session. */
  readonly maxLoadPerCpu: number
  /** orch's sessions on each host now. */
  readonly sessions: ReadonlyMap<string, number>
  /**
   * Sessions on each host that its figures do not include yet (src/domain/reservation.ts), and those a batch placed
   * before this one: each holds `memoryMb` of its MemAvailable.
   */
  readonly reserved?: ReadonlyMap<string, number>
  /** Hosts the session cannot go to whatever their figures, with why (a project without origin: every remote one). */
  readonly excluded?: ReadonlyMap<string, string>
}

export type Placement =
  | { readonly host: string }
  | { readonly none: ReadonlyArray<{ readonly host: string; readonly reason: string }> }

const mb = (value: number) => `${Math.round(value)} MB`

/** Why `host` cannot take the session, or its memory left after the reserve when it can. */
const judge = (
  host: PlacementHost,
  reading: HostReading | undefined,
  request: PlacementRequest
): string | { readonly left: number; readonly loadPerCpu: number } => {
  if (request.allowed !== undefined && !request.allowed.includes(host.name)) return `the project may not use it (its hosts: ${request.allowed.join(", ")})`
  const missing = (request.labels ?? []).filter((label) => !(host.labels ?? []).includes(label))
  if (missing.length > 0) return `it lacks the label${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`
  const excluded = request.excluded?.get(host.name)
  if (excluded !== undefined) return excluded
  if (reading === undefined || reading._tag === "Unmeasured") return "its headroom has not been measured yet"
  if (reading._tag === "Down") return `it is down (${reading.error})`
  const facts = reading.facts
  if (facts.tmux === undefined) return "tmux is not installed there"
  const sessions = request.sessions.get(host.name) ?? 0
  if (host.maxSessions !== undefined && sessions >= host.maxSessions) {
    return `it runs ${sessions} session${sessions === 1 ? "" : "s"}, its maxSessions ${host.maxSessions}`
  }
  const reserved = (request.reserved?.get(host.name) ?? 0) * request.memoryMb
  const free = facts.memAvailableMb - reserved
  if (free < request.memoryMb) {
    return `${mb(free)} of memory free${reserved > 0 ? ` (after ${mb(reserved)} reserved for sessions just placed)` : ""}, a session needs ${
      mb(request.memoryMb)
    }`
  }
  if (facts.disk.freeMb < request.minDiskMb) return `${mb(facts.disk.freeMb)} of disk free at ${facts.disk.path}, a session needs ${mb(request.minDiskMb)}`
  const loadPerCpu = facts.load1 / facts.cpus
  if (loadPerCpu > request.maxLoadPerCpu) return `load ${facts.load1} on ${facts.cpus} CPUs is over ${request.maxLoadPerCpu} per CPU`
  return { left: free - request.memoryMb, loadPerCpu }
}

export const place = (hosts: ReadonlyArray<PlacementHost>, readings: ReadonlyMap<string, HostReading>, request: PlacementRequest): Placement => {
  const candidates = request.host === undefined ? hosts : hosts.filter((host) => host.name === request.host)
  if (request.host !== undefined && candidates.length === 0) {
    return { none: [{ host: request.host, reason: `there is no such host (hosts: ${hosts.map((host) => host.name).join(", ")})` }] }
  }
  const fits: Array<{ readonly host: string; readonly left: number; readonly loadPerCpu: number }> = []
  const reasons: Array<{ readonly host: string; readonly reason: string }> = []
  for (const host of candidates) {
    const verdict = judge(host, readings.get(host.name), request)
    if (typeof verdict === "string") reasons.push({ host: host.name, reason: verdict })
    else fits.push({ host: host.name, ...verdict })
  }
  fits.sort((a, b) => b.left - a.left || a.loadPerCpu - b.loadPerCpu || a.host.localeCompare(b.host))
  return fits.length > 0 ? { host: fits[0]!.host } : { none: reasons }
}

/**
 * "no host can take the session: a: …; b: …" — the sentence a spawn that fits nowhere fails with; "host a cannot
 * take the session: …" when only one was asked (`--host a`).
 */
export const describeNowhere = (none: ReadonlyArray<{ readonly host: string; readonly reason: string }>): string =>
  none.length === 1
    ? `host ${none[0]!.host} cannot take the session: ${none[0]!.reason}`
    : `no host can take the session: ${none.map(({ host, reason }) => `${host}: ${reason}`).join("; ")}`

/**
 * Where each of `count` new sessions goes, in order, on one set of readings: each placement counts against its
 * host's `maxSessions` and memory for the ones after it, so a batch spreads instead of piling onto the host that
 * had the most headroom when it was measured.
 */
export const placeMany = (
  hosts: ReadonlyArray<PlacementHost>,
  readings: ReadonlyMap<string, HostReading>,
  request: PlacementRequest,
  count: number
): ReadonlyArray<Placement> => {
  const sessions = new Map(request.sessions)
  const placed = new Map(request.reserved)
  return Array.from({ length: count }, () => {
    const placement = place(hosts, readings, { ...request, sessions, reserved: placed })
    if ("host" in placement) {
      sessions.set(placement.host, (sessions.get(placement.host) ?? 0) + 1)
      placed.set(placement.host, (placed.get(placement.host) ?? 0) + 1)
    }
    return placement
  })
}
