/**
 * Intake (DESIGN.md principle 9): which of a tracker's open, labelled issues to queue and which queued ones to
 * drop. Pure: the supervisor's intake loop (actors/intake.ts) asks the tracker, this decides, the loop writes.
 *
 * An issue is queued once: the first poll that sees it open with the labels queues it, unless a session works or
 * worked it, or it is queued already (by a person). It stays "seen" while it stays open with the labels, so a
 * person's `orch queue rm` or `orch session kill` is not undone by the next poll; one that closes or loses a label
 * leaves the seen set, and an entry intake queued for it is dropped.
 */
import type { QueueEntry } from "../../src/domain/queue.ts"

export interface IntakeIssue {
  readonly id: string
  readonly title?: string
  readonly labels: ReadonlyArray<string>
}

export interface IntakeFacts {
  /** What the tracker answered: open issues with every intake label. */
  readonly open: ReadonlyArray<IntakeIssue>
  /** The project's queued entries. */
  readonly queued: ReadonlyArray<QueueEntry>
  /** Issues of the project that have (or had) a session. */
  readonly worked: ReadonlySet<string>
  /** Issues the last poll saw open with the labels. */
  readonly seen: ReadonlySet<string>
  /** Label → priority. */
  readonly priorities: Readonly<Record<string, number>>
}

export interface IntakeStep {
  readonly add: ReadonlyArray<{ readonly issue: string; readonly priority: number; readonly title?: string }>
  /** Entries intake queued whose issue is no longer open with the labels. */
  readonly drop: ReadonlyArray<QueueEntry>
  readonly seen: ReadonlyArray<string>
}

/** The highest priority of an issue's labels (labels compared without case); 0 when none has one. */
export const priorityOf = (labels: ReadonlyArray<string>, priorities: Readonly<Record<string, number>>): number => {
  const byLabel = new Map(Object.entries(priorities).map(([label, priority]) => [label.toLowerCase(), priority]))
  const found = labels.flatMap((label) => byLabel.has(label.toLowerCase()) ? [byLabel.get(label.toLowerCase())!] : [])
  return found.length === 0 ? 0 : Math.max(...found)
}

export const intakeStep = (facts: IntakeFacts): IntakeStep => {
  const open = new Set(facts.open.map((issue) => issue.id))
  const queued = new Set(facts.queued.flatMap((entry) => entry.issue === undefined ? [] : [entry.issue]))
  return {
    add: facts.open
      .filter((issue) => !facts.seen.has(issue.id) && !queued.has(issue.id) && !facts.worked.has(issue.id))
      .map((issue) => ({
        issue: issue.id,
        priority: priorityOf(issue.labels, facts.priorities),
        ...(issue.title !== undefined ? { title: issue.title } : {})
      })),
    drop: facts.queued.filter((entry) => entry.by === "intake" && entry.issue !== undefined && !open.has(entry.issue)),
    seen: [...open].sort()
  }
}
