/**
 * The merge train's decisions, pure: which approved and green PRs are cars, and what the head car does next
 * given what the repohost says of its pull request now. The service (actors/merge-train.ts) writes each decision
 * down before it acts on it (docs/supervisor.md "Merge train").
 *
 * "Up to date" is decided from shas, never from a `behind` merge state (which GitHub shows only where branches must
 * be up to date): the PR's head must contain the default branch's head as it is now.
 */
import type { NewEvent } from "../../src/domain/event.ts"
import {
  carsInOrder,
  headCar,
  type MergeAnswer,
  type PullFacts,
  type TrainCar,
  type TrainFile,
  type TrainLeaver,
  type TrainStep,
  type UpdateAnswer
} from "../../src/domain/train.ts"

export { carsInOrder, headCar }
export type { MergeAnswer, PullFacts, UpdateAnswer }

/** How long a head the repohost accepted to update may take to appear before the update is asked for again. */
export const UPDATE_PATIENCE_MS = 120_000

/** A session of the project as its record shows it: whether it may be (or stay) a car. */
export interface Candidate {
  readonly sessionId: string
  readonly prNumber: number
  readonly branch: string
  readonly priority: number
  /** Approved, checks passing, no conflicts, open: what joins the train. */
  readonly ready: boolean
  readonly prState: "open" | "draft" | "merged" | "closed"
  readonly approved: boolean
  readonly checksFailing: boolean
}

const short = (sha: string) => sha.slice(0, 7)

/**
 * What `train.merged` says: the head the train merged and the base its checks ran on. Not "onto" that base: someone
 * may have merged another PR by hand since, and the repohost's merge then lands on a newer head than the train saw.
 */
export const mergedMessage = (car: TrainCar, step: { readonly head: string; readonly base: string }) =>
  `PR #${car.prNumber} merged by the train at ${short(step.head)}, checked on ${short(step.base)}`

const carEvent = (projectId: string, car: TrainCar, type: NewEvent["type"], message: string, data: Record<string, unknown> = {}): NewEvent => ({
  type,
  sessionId: car.sessionId,
  projectId,
  prNumber: car.prNumber,
  message,
  data: { branch: car.branch, ...data }
})

/**
 * A car that merged is out of the train; its session's record says merged only at its next look, so it is kept
 * from joining again until the train has seen it not ready.
 */
const merged = (file: TrainFile, car: TrainCar, head: string, at: string): TrainFile => ({
  ...file,
  cars: file.cars.filter((c) => c.sessionId !== car.sessionId),
  left: [...file.left.filter((l) => l.sessionId !== car.sessionId), { sessionId: car.sessionId, head, reason: "merged", at }]
})

/** A car leaves without merging: the event, and the leaver that keeps it from joining again at once. */
export const leave = (file: TrainFile, car: TrainCar, reason: string, head: string, at: string, data: Record<string, unknown> = {}) => ({
  file: {
    ...file,
    cars: file.cars.filter((c) => c.sessionId !== car.sessionId),
    left: [...file.left.filter((l) => l.sessionId !== car.sessionId), { sessionId: car.sessionId, head, reason, at }]
  },
  events: [carEvent(file.projectId, car, "train.left", `PR #${car.prNumber} left the merge train: ${reason}`, { reason, ...data })]
})

/**
 * Cars join and leave by the session records: a ready PR joins (unless it left and has been neither seen un-ready
 * since nor, by `heads`, the repohost's word on the heads of such PRs, seen with another head);
 * a car that is not the head (no step under way) leaves when its PR is merged or closed elsewhere, its approval goes,
 * its checks fail or its session ends. The head car's fate is decided by `decideHead`, on the repohost's answer.
 */
export const syncCars = (
  file: TrainFile,
  candidates: ReadonlyArray<Candidate>,
  at: string,
  heads: ReadonlyMap<string, string> = new Map()
): { readonly file: TrainFile; readonly events: ReadonlyArray<NewEvent> } => {
  const byId = new Map(candidates.map((c) => [c.sessionId, c]))
  const stillOut = (l: TrainLeaver) => byId.get(l.sessionId)?.ready === true && (heads.get(l.sessionId) ?? l.head) === l.head
  let next: TrainFile = { ...file, left: file.left.filter(stillOut) }
  const events: Array<NewEvent> = []
  for (const car of file.cars) {
    if (car.step !== undefined) continue
    const candidate = byId.get(car.sessionId)
    const reason = candidate === undefined
      ? "its session ended"
      : candidate.prState === "merged" || candidate.prState === "closed"
      ? `its pull request was ${candidate.prState} outside the train`
      : candidate.prState === "draft"
      ? "its pull request became a draft"
      : !candidate.approved
      ? "it is no longer approved"
      : candidate.checksFailing
      ? "its checks failed"
      : undefined
    if (reason === undefined) continue
    const gone = leave(next, car, reason, "", at)
    next = gone.file
    events.push(...gone.events)
  }
  const joining = candidates
    .filter((c) => c.ready && !next.cars.some((car) => car.sessionId === c.sessionId) && !next.left.some((l) => l.sessionId === c.sessionId))
    .sort((a, b) => b.priority - a.priority)
  for (const c of joining) {
    const car: TrainCar = { sessionId: c.sessionId, prNumber: c.prNumber, branch: c.branch, priority: c.priority, joinedAt: at, seq: next.next }
    next = { ...next, next: next.next + 1, cars: [...next.cars, car] }
    const position = carsInOrder(next).indexOf(car) + 1
    events.push(
      carEvent(file.projectId, car, "train.joined", `PR #${c.prNumber} joined the merge train at position ${position}`, { position, priority: c.priority })
    )
  }
  return { file: next, events }
}

/** What the service does for the head car after writing the decision down. */
export type TrainAction =
  | { readonly _tag: "None" }
  | { readonly _tag: "UpdateBranch"; readonly expectedHead: string }
  | { readonly _tag: "TellRebase"; readonly head: string }
  | { readonly _tag: "Merge"; readonly head: string }

export interface Decision {
  readonly file: TrainFile
  readonly events: ReadonlyArray<NewEvent>
  readonly action: TrainAction
}

const none: TrainAction = { _tag: "None" }

const withStep = (file: TrainFile, car: TrainCar, step: TrainStep | undefined, problem?: string): TrainFile => ({
  ...file,
  cars: file.cars.map((c) => {
    if (c.sessionId !== car.sessionId) return c
    const { step: _, problem: __, ...rest } = c
    return { ...rest, ...(step !== undefined ? { step } : {}), ...(problem !== undefined ? { problem } : {}) }
  })
})

const same = (a: TrainStep | undefined, b: TrainStep | undefined) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The head car's next move, from its step (what the train was doing, possibly cut short by a crash) and the facts.
 * `nowMs`/`at`: the time, as milliseconds and ISO.
 */
export const decideHead = (looked: TrainFile, car: TrainCar, facts: PullFacts, nowMs: number, at: string): Decision => {
  const step = car.step
  // The repohost answered: a problem the last try had is over.
  const file = car.problem === undefined ? looked : withStep(looked, car, step)
  const projectId = file.projectId
  if (facts.state === "merged") {
    // Merged while the train was merging it, with its head pinned: the train's merge (the repohost refuses any other
    // head; the PR's head may read otherwise afterwards, e.g. once its branch is deleted).
    if (step?.kind === "merging") {
      return {
        file: { ...file, cars: file.cars.filter((c) => c.sessionId !== car.sessionId) },
        events: [
          carEvent(projectId, car, "train.merged", mergedMessage(car, step), {
            head: step.head,
            base: step.base
          })
        ],
        action: none
      }
    }
    return { ...leave(file, car, "its pull request was merged outside the train", facts.head, at), action: none }
  }
  if (facts.state === "closed") return { ...leave(file, car, "its pull request was closed", facts.head, at), action: none }
  if (facts.state === "draft") return { ...leave(file, car, "its pull request became a draft", facts.head, at), action: none }
  if (!facts.approved) return { ...leave(file, car, "it is no longer approved", facts.head, at), action: none }

  const events: Array<NewEvent> = []
  if (step?.kind === "rebasing" && facts.head === step.from) {
    return step.told
      ? { file, events, action: none }
      : { file, events, action: { _tag: "TellRebase", head: facts.head } }
  }
  if (step?.kind === "updated" && facts.head === step.from) {
    // The repohost said yes but the new head has not appeared: ask again after a while (asking twice is harmless).
    if (nowMs - Date.parse(step.at) < UPDATE_PATIENCE_MS) return { file, events, action: none }
  }
  if (step?.kind === "updating" && facts.head !== step.from) {
    // A crash after the update and before its outcome was written: the new head says it happened.
    events.push(
      carEvent(projectId, car, "train.updated", `PR #${car.prNumber} brought up to date with ${short(step.base)}`, {
        from: step.from,
        base: step.base,
        head: facts.head,
        recovered: true
      })
    )
  }
  if (!facts.upToDate) {
    const updating: TrainStep = { kind: "updating", from: facts.head, base: facts.base }
    return { file: withStep(file, car, updating), events, action: { _tag: "UpdateBranch", expectedHead: facts.head } }
  }
  if (facts.checks === "failing") {
    const names = facts.failingChecks.map((check) => check.name).join(", ")
    const gone = leave(
      file,
      car,
      `its checks failed on ${short(facts.head)}, up to date with ${short(facts.base)}${names ? ` (${names})` : ""}`,
      facts.head,
      at,
      {
        head: facts.head,
        base: facts.base
      }
    )
    return { file: gone.file, events: [...events, ...gone.events], action: none }
  }
  if (facts.checks === "passing") {
    const merging: TrainStep = { kind: "merging", head: facts.head, base: facts.base }
    return { file: withStep(file, car, merging), events, action: { _tag: "Merge", head: facts.head } }
  }
  const checking: TrainStep = { kind: "checking", head: facts.head, base: facts.base }
  return { file: same(step, checking) && events.length === 0 && car.problem === undefined ? looked : withStep(file, car, checking), events, action: none }
}

export const afterUpdate = (file: TrainFile, car: TrainCar, answer: UpdateAnswer, at: string): Decision => {
  const step = car.step
  if (step?.kind !== "updating") return { file, events: [], action: none }
  switch (answer._tag) {
    case "Updated":
      return {
        file: withStep(file, car, { kind: "updated", from: step.from, at }),
        events: [
          carEvent(file.projectId, car, "train.updated", `PR #${car.prNumber} brought up to date with ${short(step.base)}`, {
            from: step.from,
            base: step.base
          })
        ],
        action: none
      }
    case "AlreadyUpToDate":
    case "HeadMoved":
      // The next look sees the head as it is and decides again.
      return { file: withStep(file, car, undefined), events: [], action: none }
    case "Conflict":
      return { file: withStep(file, car, { kind: "rebasing", from: step.from, told: false }), events: [], action: none }
    case "Unknown":
      return { file: withStep(file, car, step, answer.reason), events: [], action: none }
  }
}

/** The agent was told to rebase (or could not be: `problem`); it is not told again for this head. */
export const afterTellRebase = (file: TrainFile, car: TrainCar, problem: string | undefined): Decision => {
  const step = car.step
  if (step?.kind !== "rebasing") return { file, events: [], action: none }
  return { file: withStep(file, car, { ...step, told: true }, problem), events: [], action: none }
}

export const afterMerge = (file: TrainFile, car: TrainCar, answer: MergeAnswer, at: string): Decision => {
  const step = car.step
  if (step?.kind !== "merging") return { file, events: [], action: none }
  switch (answer._tag) {
    case "Merged":
      return {
        file: merged(file, car, step.head, at),
        events: [carEvent(file.projectId, car, "train.merged", mergedMessage(car, step), {
          head: step.head,
          base: step.base,
          ...(answer.sha !== undefined ? { mergeCommit: answer.sha } : {})
        })],
        action: none
      }
    case "Refused":
      return { file: withStep(file, car, undefined, answer.reason), events: [], action: none }
    case "Unknown":
      return { file: withStep(file, car, step, answer.reason), events: [], action: none }
  }
}
