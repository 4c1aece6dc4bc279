/**
 * How big a session is, measured: the resident memory of its agent's process tree (from one `ps` of the machine),
 * and the figure admission expects of one more session of an agent plugin, moving with each minute's samples.
 * Pure.
 */

export interface ProcessRow {
  readonly pid: number
  readonly ppid: number
  /** Resident set size, in bytes. */
  readonly rssBytes: number
}

/** `ps -e -o pid=,ppid=,rss=` (rss in KiB) as rows; lines that are not three numbers are left out. */
export const parsePs = (text: string): Array<ProcessRow> =>
  text.split("\n").flatMap((line) => {
    const fields = line.trim().split(/\s+/)
    if (fields.length !== 3 || !fields.every((field) => /^\d+$/.test(field))) return []
    const [pid, ppid, rss] = fields.map(Number) as [number, number, number]
    return [{ pid, ppid, rssBytes: rss * 1024 }]
  })

/**
 * The RSS of a process and every process under it, in bytes (undefined when it is not running), from one reading of
 * the machine's processes. The rows are indexed once, so measuring every session of a reading costs one pass over
 * them plus each session's own tree (measuring each session from the rows anew made a round of 100 sessions on a
 * busy machine allocate tens of megabytes).
 */
export const treeRssOf = (rows: ReadonlyArray<ProcessRow>): (root: number) => number | undefined => {
  const rss = new Map<number, number>()
  const children = new Map<number, Array<number>>()
  for (const row of rows) {
    rss.set(row.pid, row.rssBytes)
    const siblings = children.get(row.ppid)
    if (siblings === undefined) children.set(row.ppid, [row.pid])
    else siblings.push(row.pid)
  }
  return (root) => {
    if (!rss.has(root)) return undefined
    let total = 0
    const seen = new Set<number>()
    const stack = [root]
    while (stack.length > 0) {
      const pid = stack.pop()!
      if (seen.has(pid)) continue
      seen.add(pid)
      total += rss.get(pid) ?? 0
      for (const child of children.get(pid) ?? []) stack.push(child)
    }
    return total
  }
}

export interface AgentSize {
  /** What one more session of the agent is expected to take, in bytes. */
  readonly bytes: number
  /** Rounds that measured at least one of its sessions. */
  readonly rounds: number
}

/** How much a round's figure moves the expected size: a new high counts at once, a lower one slowly. */
export const SIZE_FALL_WEIGHT = 0.2

/**
 * The sizes after a round of samples (each live session's tree, by agent plugin). An agent's figure is its largest
 * session this round when that is above the figure (sessions grow with their work; admission must not
 * under-reserve), else it falls toward it by SIZE_FALL_WEIGHT. Agents without a sample this round keep theirs.
 */
export const nextSizes = (
  previous: Readonly<Record<string, AgentSize>>,
  samples: ReadonlyArray<{ readonly agent: string; readonly bytes: number }>
): Record<string, AgentSize> => {
  const largest = new Map<string, number>()
  for (const sample of samples) largest.set(sample.agent, Math.max(largest.get(sample.agent) ?? 0, sample.bytes))
  const next: Record<string, AgentSize> = { ...previous }
  for (const [agent, bytes] of largest) {
    const before = previous[agent]
    next[agent] = {
      bytes: before === undefined || bytes >= before.bytes ? bytes : Math.round(before.bytes + (bytes - before.bytes) * SIZE_FALL_WEIGHT),
      rounds: (before?.rounds ?? 0) + 1
    }
  }
  return next
}

/** A session is measured once it has worked this long: a fresh agent has not grown to its working size yet. */
export const MEASURE_AFTER_MS = 60_000

/**
 * Whether a session's size tells the expected size of one more: a worker (an orchestrator session does other work,
 * and admission does not count it) that has run MEASURE_AFTER_MS.
 */
export const measurable = (record: { readonly role?: string; readonly createdAt: string }, now: number): boolean =>
  record.role === undefined && now - Date.parse(record.createdAt) >= MEASURE_AFTER_MS
