/** What a run's files say, read loosely (the invariants read them strictly, with the real Schemas). */
import { join } from "node:path"
import type { World } from "./world.ts"

export interface LooseEvent {
  readonly type: string
  readonly sessionId?: string
  readonly issueId?: string
  readonly message?: string
  readonly data?: Record<string, unknown>
}

export const events = (world: World): Array<LooseEvent> =>
  world.lines(join(world.dataDir, "events.jsonl")).flatMap((line) => {
    try {
      return [JSON.parse(line) as LooseEvent]
    } catch {
      return []
    }
  })

/** The agents that started, in order: `started.log`'s lines (a restored session starts again). */
export const started = (world: World): Array<{ readonly sessionId: string; readonly issueId: string }> =>
  world.lines(world.startedLog).map((line) => {
    const [sessionId = "", issueId = ""] = line.split(" ")
    return { sessionId, issueId }
  })

/** Issues admitted from the queue so far (`queue.admitted` events). */
export const admittedIssues = (world: World): Array<string> => events(world).filter((e) => e.type === "queue.admitted").map((e) => e.issueId ?? "")

/** The session id the last event of `type` for `issueId` names. */
export const sessionOfIssue = (world: World, issueId: string): string | undefined =>
  events(world).filter((e) => (e.type === "queue.admitted" || e.type === "session.spawned") && e.issueId === issueId).at(-1)?.sessionId

/** Whether the agent of every session working one of `issues` has started. */
export const agentsStarted = (world: World, issues: ReadonlyArray<string>): boolean => {
  const agents = started(world)
  return issues.every((issue) => agents.some((a) => a.issueId === issue))
}

/** The pid admission.json was written by (the supervisor's last admission round), if any. */
export const admissionPid = (world: World): number | undefined => (world.readJson(join(world.dataDir, "admission.json")) as { pid?: number } | undefined)?.pid
