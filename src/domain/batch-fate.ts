/**
 * What became of an interrupted `orch batch-spawn` (Ctrl-C, a signal), for its one sentence: which of its issues
 * started (a `session.spawned` since it asked), which are in the queue now (their entries start on their own while
 * the supervisor runs; a spawn cut short puts its entry back), and which neither. Pure: the callers read the event
 * log and the queue file (the CLI, and the fast path, which loads no Effect, alike).
 */
import type { SpawnEventLike } from "./spawn-fate.ts"

/** The part of a queue entry this reads. */
export interface EntryLike {
  readonly id: string
  readonly issue?: string | undefined
}

export interface BatchFate {
  readonly started: ReadonlyArray<{ readonly issueId: string; readonly sessionId: string }>
  readonly queued: ReadonlyArray<{ readonly issueId: string; readonly entryId: string }>
  /** Neither started since it asked nor in the queue: a live session was already on it, or orch never took it. */
  readonly neither: ReadonlyArray<string>
}

/** The fate of each of `issues` (ids as orch keeps them), from `events` appended since the batch asked and the queue's `entries` now. */
export const batchFate = (issues: ReadonlyArray<string>, events: ReadonlyArray<SpawnEventLike>, entries: ReadonlyArray<EntryLike>): BatchFate => {
  const started: Array<{ issueId: string; sessionId: string }> = []
  const queued: Array<{ issueId: string; entryId: string }> = []
  const neither: Array<string> = []
  for (const issueId of [...new Set(issues)]) {
    const spawned = events.findLast((event) => event.type === "session.spawned" && event.issueId === issueId && event.sessionId !== undefined)
    const entry = entries.find((e) => e.issue === issueId)
    if (spawned?.sessionId !== undefined) started.push({ issueId, sessionId: spawned.sessionId })
    else if (entry !== undefined) queued.push({ issueId, entryId: entry.id })
    else neither.push(issueId)
  }
  return { started, queued, neither }
}

const list = (items: ReadonlyArray<string>) => (items.length <= 5 ? items.join(", ") : `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`)

/**
 * The one sentence an interrupted `orch batch-spawn` prints (after `orch: `). `supervised`: a supervisor runs, so
 * what waits starts on its own. `taken`: the batch was asked for (sent to the supervisor, or begun here).
 */
export const interruptedBatchSentence = (fate: BatchFate, supervised: boolean, taken: boolean): string => {
  if (!taken) return "batch-spawn interrupted before the batch was asked for; nothing was started or queued"
  const parts: Array<string> = []
  if (fate.started.length > 0) {
    const started = list(fate.started.map((s) => `${s.issueId} as ${s.sessionId}`))
    parts.push(`${fate.started.length} started and ${fate.started.length === 1 ? "runs" : "run"} (${started})`)
  }
  if (fate.queued.length > 0) {
    const one = fate.queued.length === 1
    const when = supervised ? "while orch's supervisor runs" : "once orch's supervisor runs (`orch start`)"
    parts.push(
      `${fate.queued.length} ${one ? "waits" : "wait"} in the queue (${list(fate.queued.map((q) => q.issueId))}) and ${one ? "starts" : "start"} on ${
        one ? "its" : "their"
      } own ${when}; \`orch queue ls\` shows ${one ? "it" : "them"}`
    )
  }
  if (fate.neither.length > 0) {
    parts.push(
      `${list(fate.neither)} ${fate.neither.length === 1 ? "was" : "were"} neither started nor queued by it (\`orch status\` shows whether a session is on ${
        fate.neither.length === 1 ? "it" : "them"
      })`
    )
  }
  return `batch-spawn interrupted: ${parts.join("; ")}`
}
