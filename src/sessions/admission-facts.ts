/**
 * The facts the admission rule (src/domain/admission.ts) decides on: the config's limits, the records' live,
 * awaiting-review and rate-limited sessions, and this machine's free memory (less what its sessions not yet measured
 * hold) and load, or, when hosts are configured, whether placement could put a session of each project on some host.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import type { AdmissionFacts, ProjectFacts } from "../domain/admission.ts"
import { groupAvailableBytes, groupDirs, type GroupMemory, inactiveFileOf, parseLimit } from "../domain/memory-budget.ts"
import { clockTime, credentialOf } from "../domain/rate-limit.ts"
import type { AgentSize } from "../domain/session-size.ts"
import { awaitsReview, holdsASlot, hostOf, isEnded, type SessionRecord } from "../domain/session.ts"

/** The expected size of one more session of an agent before any of its sessions has been measured (docs/queue.md). */
export const DEFAULT_SESSION_BYTES = 1024 ** 3
/** Memory admission leaves alone for everything else on the machine. */
export const MEMORY_RESERVE_BYTES = 1024 ** 3
/** No admission while the 1-minute load average is at least this many times the number of cores. */
export const MAX_LOAD_PER_CORE = 4

export interface MachineReading {
  readonly freeBytes?: number
  readonly load?: number
  readonly cores: number
  /** When it was read (ms): the time the facts' sentences are told from. */
  readonly readAt: number
}

/** The expected size of one more session of `agent`: measured (session-sizes.json), else the default. */
export const expectedSize = (sizes: Readonly<Record<string, AgentSize>>) => (agent: string): number => sizes[agent]?.bytes ?? DEFAULT_SESSION_BYTES

/** What the sessions' sizes tell admission (read each round by src/sessions/reservations.ts). */
export interface Measured {
  /** The expected size of one more session of an agent plugin, in bytes. */
  readonly expectedBytes: (agent: string) => number
  /** The sessions that count against their host at their expected size until its figures include them. */
  readonly reserved: ReadonlyArray<SessionRecord>
  /**
   * What each of this machine's reserved sessions already takes (its agent's process tree, read now): that part of its
   * expected size is in MemAvailable already, so only the rest is held. Absent: nothing read, the whole size held.
   */
  readonly used?: ReadonlyMap<string, number>
}

export const NOTHING_MEASURED: Measured = { expectedBytes: expectedSize({}), reserved: [] }

/** MemAvailable from /proc/meminfo's text, in bytes. */
export const memAvailable = (meminfo: string): number | undefined => {
  const kb = /^MemAvailable:\s+(\d+)\s+kB$/m.exec(meminfo)?.[1]
  return kb === undefined ? undefined : Number(kb) * 1024
}

const readOr = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** The memory groups orch runs in that have the memory files (none outside Linux, or without cgroups). */
const readGroups = (): ReadonlyArray<GroupMemory> =>
  groupDirs(readOr("/proc/self/cgroup") ?? "").flatMap((dir) => {
    const v2 = readOr(join(dir, "memory.max")) !== undefined
    const limit = readOr(join(dir, v2 ? "memory.max" : "memory.limit_in_bytes"))
    const usage = readOr(join(dir, v2 ? "memory.current" : "memory.usage_in_bytes"))
    if (limit === undefined || usage === undefined) return []
    return [{ limit: parseLimit(limit), usage: Number(usage.trim()), inactiveFile: inactiveFileOf(readOr(join(dir, "memory.stat")) ?? "") }]
  })

/**
 * This machine now: MemAvailable, or what orch's memory group has left when that is less (a container's limit);
 * where /proc/meminfo is missing, its memory is not known and holds nothing back.
 */
export const readMachine: Effect.Effect<MachineReading> = Effect.flatMap(Clock.currentTimeMillis, (readAt) =>
  Effect.sync(() => {
    const machine = memAvailable(readOr("/proc/meminfo") ?? "")
    const group = groupAvailableBytes(readGroups())
    const freeBytes = machine === undefined ? undefined : Math.min(machine, group ?? Infinity)
    return { ...(freeBytes !== undefined ? { freeBytes } : {}), load: loadavg()[0]!, cores: availableParallelism(), readAt }
  }))

const digest = (text: string): string => createHash("sha256").update(text).digest("hex")

/** The credential a project's sessions spend (its agent plugin, and a digest of the key in its agentConfig). */
export const projectCredential = (project: Pick<ProjectConfig, "agent" | "agentConfig">): string => credentialOf(project.agent, project.agentConfig, digest)

/**
 * Per credential, a sentence on its limit when a live session spending it is rate-limited: "agent coding-agent is
 * rate-limited (app-3); orch tells app-3 to continue at 16:12" (or that app-3 retries by itself, or that the
 * provider is overloaded).
 */
export const rateLimitedCredentials = (config: OrchestratorConfig, records: ReadonlyArray<SessionRecord>, now: number): ReadonlyMap<string, string> => {
  const limited = new Map<string, Array<SessionRecord>>()
  const projects = new Map(Object.values(config.projects).map((project) => [project.id, project]))
  for (const record of records) {
    const project = projects.get(record.projectId)
    if (project === undefined || isEnded(record.status) || record.activity !== "rate_limited" || record.rateLimit === undefined) continue
    const credential = projectCredential(project)
    limited.set(credential, [...(limited.get(credential) ?? []), record])
  }
  return new Map([...limited].map(([credential, sessions]) => {
    const next = sessions.reduce((a, b) => a.rateLimit!.continueAt <= b.rateLimit!.continueAt ? a : b)
    const ids = sessions.map((record) => record.sessionId).join(", ")
    const limit = next.rateLimit!
    const what = limit.kind === "overloaded" ? `agent ${credential}'s provider is overloaded` : `agent ${credential} is rate-limited`
    const when = limit.retrying === true
      ? `${next.sessionId} retries by itself${limit.resetAt === undefined ? "" : `, next ${clockTime(now)(Date.parse(limit.resetAt))}`}`
      : `orch tells ${next.sessionId} to continue ${clockTime(now)(Date.parse(limit.continueAt))}`
    return [credential, `${what} (${ids}); ${when}`]
  }))
}

/** What this machine's sessions not yet measured hold: each its agent's expected size, less what it already takes. */
const heldHere = ({ expectedBytes, reserved, used }: Measured): ReadonlyArray<number> =>
  reserved.filter((record) => hostOf(record) === LOCAL).map((record) => Math.max(0, expectedBytes(record.agent.plugin) - (used?.get(record.sessionId) ?? 0)))
    .filter((bytes) => bytes > 0)

/** The facts from the config, the records (workers only: orchestrator sessions are not counted) and the machine. */
export const admissionFacts = (
  config: OrchestratorConfig,
  records: ReadonlyArray<SessionRecord>,
  machine: MachineReading,
  measured: Measured = NOTHING_MEASURED,
  placement: {
    /** Per project, why no host (this machine included) can take one of its sessions now. */
    readonly unplaceable?: Readonly<Record<string, string | undefined>>
    /** Per project, why its own setup holds it back now (src/domain/holds.ts). */
    readonly held?: Readonly<Record<string, string | undefined>>
  } = {}
): AdmissionFacts => {
  const { expectedBytes } = measured
  const unplaceable = placement.unplaceable ?? {}
  const held = placement.held ?? {}
  // With hosts, placement weighs every host's memory and load, this machine's included (`unplaceable`).
  const hosted = Object.keys(config.hosts).length > 0
  // Workers whose agent may run hold a session; a PR waits on its reviewer whether or not its agent still runs.
  const open = records.filter((record) => record.role === undefined && !isEnded(record.status))
  const workers = open.filter(holdsASlot)
  const projects: Record<string, ProjectFacts> = {}
  const limited = rateLimitedCredentials(config, open, machine.readAt)
  for (const project of Object.values(config.projects)) {
    const rateLimited = limited.get(projectCredential(project))
    const mine = (list: ReadonlyArray<SessionRecord>) => list.filter((record) => record.projectId === project.id)
    projects[project.id] = {
      live: mine(workers).length,
      awaitingReview: mine(open).filter(awaitsReview).length,
      ...(project.maxSessions !== undefined ? { maxSessions: project.maxSessions } : {}),
      ...(project.maxAwaitingReview !== undefined ? { maxAwaitingReview: project.maxAwaitingReview } : {}),
      ...(unplaceable[project.id] !== undefined ? { unplaceable: unplaceable[project.id]! } : {}),
      ...(held[project.id] !== undefined ? { held: held[project.id]! } : {}),
      ...(rateLimited !== undefined ? { rateLimited } : {})
    }
  }
  return {
    totalLive: workers.length,
    ...(config.maxSessions !== undefined ? { maxSessions: config.maxSessions } : {}),
    projects,
    machine: {
      name: "this machine",
      reserveBytes: MEMORY_RESERVE_BYTES,
      ...(machine.freeBytes !== undefined && !hosted ? { freeBytes: machine.freeBytes, held: heldHere(measured) } : {}),
      ...(machine.load !== undefined && !hosted ? { load: machine.load, maxLoad: machine.cores * MAX_LOAD_PER_CORE } : {})
    },
    expectedBytes
  }
}
