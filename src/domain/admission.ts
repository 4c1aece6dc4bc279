/**
 * The admission rule (DESIGN.md principle 9): which queued entry starts next, or, for each waiting one, the
 * budget it waits on, as a sentence. A plain function over explicit facts: the supervisor gathers them (records,
 * the machine's memory and load, measured session sizes); a host's headroom (src/hosts/) feeds `machine` the
 * same way. Budgets: concurrency (`maxSessions` in total and per project), review (`maxAwaitingReview` per
 * project), the model quota (no new session for a credential that is rate-limited), the machine (free memory minus its
 * reserve and what sessions not yet measured hold, against one more session of that agent; load).
 */

/** What the rule needs to know of a queued entry. */
export interface Candidate {
  readonly id: string
  readonly projectId: string
  /** The agent plugin the session would run (its expected size is measured per plugin). */
  readonly agent: string
}

export interface ProjectFacts {
  /** Sessions of the project whose agent lives. */
  readonly live: number
  readonly maxSessions?: number
  /** Sessions whose PR waits on a person: open, checks green, not approved. */
  readonly awaitingReview: number
  readonly maxAwaitingReview?: number
  /** Why no host could take one more of its sessions now (placement, when hosts are configured, or this machine held). */
  readonly unplaceable?: string
  /** Why the project's own setup holds its sessions back now (src/domain/holds.ts), with when orch tries again. */
  readonly held?: string
  /** The model quota: its agent's credential is rate-limited, as a sentence (see src/domain/rate-limit.ts). */
  readonly rateLimited?: string
}

/** One machine's headroom: this one, or (later) a host's. Unknown figures do not hold anything back. */
export interface MachineFacts {
  /** For people: "this machine", "host b". */
  readonly name: string
  /** MemAvailable, in bytes. */
  readonly freeBytes?: number
  /** Memory left alone for everything else. */
  readonly reserveBytes: number
  /**
   * What each session placed here and not yet in `freeBytes` holds (its expected size): a fresh agent has not grown
   * yet (src/domain/reservation.ts), nor has one admitted in the same plan.
   */
  readonly held?: ReadonlyArray<number>
  /** The 1-minute load average, and how much of it the machine takes (cores × allowed load per core). */
  readonly load?: number
  readonly maxLoad?: number
}

export interface AdmissionFacts {
  readonly totalLive: number
  readonly maxSessions?: number
  readonly projects: Readonly<Record<string, ProjectFacts>>
  readonly machine: MachineFacts
  /** The expected size of one more session, per agent plugin (measured, or the default). */
  readonly expectedBytes: (agent: string) => number
}

export interface Waiting<C extends Candidate> {
  readonly entry: C
  /**
   * "waiting for memory on this machine: 3.4 GB free, 1.0 GB of it kept in reserve, 1 session just started counted at
   * 1.0 GB until it is measured, 1.8 GB needed".
   */
  readonly reason: string
}

export interface AdmissionVerdict<C extends Candidate> {
  /** The entry to start now, if any. */
  readonly admit?: C
  /** Every other entry, with the budget it waits on (or, behind an admitted one, its turn). */
  readonly waiting: ReadonlyArray<Waiting<C>>
}

const GB = 1024 ** 3
/** "1.4 GB", or "512 MB" below about a GB (1021 MB reads as "1.0 GB"). */
export const formatBytes = (bytes: number): string => bytes >= 0.95 * GB ? `${(bytes / GB).toFixed(1)} GB` : `${Math.max(0, Math.round(bytes / 1024 ** 2))} MB`

/**
 * ", 22 sessions just started counted at 1.0 GB each until they are measured": what the free figure does not show yet
 * (a fresh agent has not grown), which admission counts; nothing when no session is counted so.
 */
const describeHeld = (held: ReadonlyArray<number>): string => {
  if (held.length === 0) return ""
  const [least, most] = [Math.min(...held), Math.max(...held)].map(formatBytes)
  const one = held.length === 1
  const each = one ? most : least === most ? `${most} each` : `${least} to ${most} each`
  return `, ${one ? "1 session" : `${held.length} sessions`} just started counted at ${each} until ${one ? "it is" : "they are"} measured`
}

/** The memory sentence: what is free, what of it is kept in reserve and counted for sessions just started, and what one more needs. */
const memorySentence = (machine: MachineFacts, freeBytes: number, needed: number): string => {
  const reserve = machine.reserveBytes > 0
    ? `, ${formatBytes(machine.reserveBytes)}${machine.reserveBytes <= freeBytes ? " of it" : ""} kept in reserve`
    : ""
  return `waiting for memory on ${machine.name}: ${formatBytes(freeBytes)} free${reserve}${describeHeld(machine.held ?? [])}, ${formatBytes(needed)} needed`
}

/** The budget that holds `entry` back, as a sentence; undefined when every budget allows it. */
export const blocker = (entry: Candidate, facts: AdmissionFacts): string | undefined => {
  if (facts.maxSessions !== undefined && facts.totalLive >= facts.maxSessions) {
    return `waiting for a free session: ${facts.totalLive} running, maxSessions ${facts.maxSessions}`
  }
  const project = facts.projects[entry.projectId] ?? { live: 0, awaitingReview: 0 }
  if (project.maxSessions !== undefined && project.live >= project.maxSessions) {
    return `waiting for a free session in ${entry.projectId}: ${project.live} running, its maxSessions ${project.maxSessions}`
  }
  if (project.maxAwaitingReview !== undefined && project.awaitingReview >= project.maxAwaitingReview) {
    return `waiting for reviews in ${entry.projectId}: ${project.awaitingReview} PR${
      project.awaitingReview === 1 ? "" : "s"
    } await a review, its maxAwaitingReview ${project.maxAwaitingReview}`
  }
  if (project.rateLimited !== undefined) return `waiting for the model quota: ${project.rateLimited}`
  if (project.held !== undefined) return `waiting for ${entry.projectId} to start sessions again: ${project.held}`
  if (project.unplaceable !== undefined) return `waiting for a host: ${project.unplaceable}`
  const { machine } = facts
  if (machine.freeBytes !== undefined) {
    const free = machine.freeBytes - machine.reserveBytes
    const held = machine.held ?? []
    const heldBytes = held.reduce((sum, bytes) => sum + bytes, 0)
    const needed = facts.expectedBytes(entry.agent)
    if (free - heldBytes < needed) return memorySentence(machine, machine.freeBytes, needed)
  }
  if (machine.load !== undefined && machine.maxLoad !== undefined && machine.load >= machine.maxLoad) {
    return `waiting for load on ${machine.name} to fall: ${machine.load.toFixed(1)}, at most ${machine.maxLoad.toFixed(1)}`
  }
  return undefined
}

/**
 * The first entry (in queue order) that every budget allows is admitted; the others wait, each on its own
 * budget. A project's full budget holds back only that project's entries; the others may pass them.
 */
export const admission = <C extends Candidate>(entries: ReadonlyArray<C>, facts: AdmissionFacts): AdmissionVerdict<C> => {
  let admit: C | undefined
  const waiting: Array<Waiting<C>> = []
  for (const entry of entries) {
    const reason = blocker(entry, facts)
    if (reason === undefined && admit === undefined) admit = entry
    else waiting.push({ entry, reason: reason ?? "waiting for its turn" })
  }
  return admit === undefined ? { waiting } : { admit, waiting }
}

/**
 * The facts once `entry` has started (in the same plan, before any record of it exists): one more session live, and
 * one more held at its expected size. Sessions started before are in the facts' records and reservations already.
 */
export const afterAdmitting = (facts: AdmissionFacts, entry: Candidate): AdmissionFacts => {
  const project = facts.projects[entry.projectId] ?? { live: 0, awaitingReview: 0 }
  return {
    ...facts,
    totalLive: facts.totalLive + 1,
    projects: { ...facts.projects, [entry.projectId]: { ...project, live: project.live + 1 } },
    machine: facts.machine.freeBytes === undefined
      ? facts.machine
      : { ...facts.machine, held: [...(facts.machine.held ?? []), facts.expectedBytes(entry.agent)] }
  }
}

/**
 * A batch (`orch batch-spawn`): which of the `fresh` entries start now, behind what is queued already (whose
 * share of the budgets is kept for it), and, for the others, the budget each waits on.
 */
export const planBatch = <C extends Candidate>(
  queued: ReadonlyArray<C>,
  fresh: ReadonlyArray<C>,
  facts: AdmissionFacts
): { readonly start: ReadonlyArray<C>; readonly waiting: ReadonlyArray<Waiting<C>> } => {
  const start: Array<C> = []
  let pending: ReadonlyArray<C> = [...queued, ...fresh]
  let current = facts
  for (;;) {
    const verdict = admission(pending, current)
    if (verdict.admit === undefined) return { start, waiting: verdict.waiting.filter((w) => fresh.includes(w.entry)) }
    const admitted = verdict.admit
    if (fresh.includes(admitted)) start.push(admitted)
    current = afterAdmitting(current, admitted)
    pending = pending.filter((entry) => entry !== admitted)
  }
}
