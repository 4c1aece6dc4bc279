/**
 * The merge train of a project (`mergeTrain: true`): its cars and the step the head car is in, as kept on disk
 * (src/store/TrainStore.ts) and decided by actors/rules/merge-train.ts. docs/supervisor.md "Merge train".
 */
import * as Schema from "effect/Schema"
import { Outbox } from "./outbox.ts"
import type { FailingCheck } from "./session.ts"

/**
 * Where the head car is. Each step that has a side effect at the repohost is written before the effect (its
 * intent) and replaced by its outcome after it; the next look at the pull request decides what a step left by a
 * crash means.
 * - `updating`: update-branch is being asked for the head `from` with the default branch at `base`.
 * - `updated`: the repohost accepted the update of `from`; the car waits for its new head.
 * - `rebasing`: update-branch found a conflict; the PR's agent was told to rebase, the car waits for a head other than `from`.
 * - `checking`: `head` contains the default branch's head `base`; the car waits for its checks.
 * - `merging`: the merge of `head` (pinned) onto `base` is being asked for.
 */
export const TrainStep = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("updating"), from: Schema.String, base: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("updated"), from: Schema.String, at: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("rebasing"), from: Schema.String, told: Schema.Boolean }),
  Schema.Struct({ kind: Schema.Literal("checking"), head: Schema.String, base: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("merging"), head: Schema.String, base: Schema.String })
])
export type TrainStep = typeof TrainStep.Type

export const TrainCar = Schema.Struct({
  sessionId: Schema.String,
  prNumber: Schema.Int,
  branch: Schema.String,
  /** Higher first; cars of one priority in the order they became approved and green. */
  priority: Schema.Int,
  joinedAt: Schema.String,
  /** Arrival order, never reused within the project's train. */
  seq: Schema.Int,
  step: Schema.optionalKey(TrainStep),
  /** The last thing that went wrong talking to the repohost about this car, until a step succeeds. */
  problem: Schema.optionalKey(Schema.String)
})
export type TrainCar = typeof TrainCar.Type

/** A car that left without merging, and the head it had: it joins again only with another head. */
export const TrainLeaver = Schema.Struct({
  sessionId: Schema.String,
  head: Schema.String,
  reason: Schema.String,
  at: Schema.String
})
export type TrainLeaver = typeof TrainLeaver.Type

/**
 * A project's train file. `outbox`: the events of the last change, written with it before they are appended to
 * the event log (from byte `logOffset` on) and cleared after; whoever changes the file next appends what a crash left.
 */
export const TrainFile = Schema.Struct({
  projectId: Schema.String,
  next: Schema.Int,
  cars: Schema.Array(TrainCar),
  left: Schema.Array(TrainLeaver),
  outbox: Schema.optionalKey(Outbox)
})
export type TrainFile = typeof TrainFile.Type

export const emptyTrain = (projectId: string): TrainFile => ({ projectId, next: 1, cars: [], left: [] })

/** The train's order: priority (higher first), then arrival. */
export const trainOrder = (cars: ReadonlyArray<TrainCar>): ReadonlyArray<TrainCar> => [...cars].sort((a, b) => b.priority - a.priority || a.seq - b.seq)

/** The car being worked on: the one with a step under way, else the first in order. */
export const headCar = (file: TrainFile): TrainCar | undefined => file.cars.find((car) => car.step !== undefined) ?? trainOrder(file.cars)[0]

/** The cars in the order they will merge: the head first. */
export const carsInOrder = (file: TrainFile): ReadonlyArray<TrainCar> => {
  const head = headCar(file)
  return head === undefined ? [] : [head, ...trainOrder(file.cars).filter((car) => car !== head)]
}

/** What the head car waits on, in a few words (`orch train ls`, `orch status`, the dashboard). */
export const waitingOn = (car: TrainCar, position: number): string => {
  if (position > 1) return `waits behind ${position - 1} car${position > 2 ? "s" : ""}`
  const step = car.step
  const because = car.problem !== undefined ? ` (last try: ${car.problem})` : ""
  if (step === undefined) return `next: brought up to date with the default branch${because}`
  switch (step.kind) {
    case "updating":
      return `being brought up to date with ${step.base.slice(0, 7)}${because}`
    case "updated":
      return `waits for the updated head of ${step.from.slice(0, 7)}${because}`
    case "rebasing":
      return `conflicts with the default branch: waits for its agent to rebase and push${because}`
    case "checking":
      return `waits for checks on ${step.head.slice(0, 7)} (up to date with ${step.base.slice(0, 7)})${because}`
    case "merging":
      return `merging ${step.head.slice(0, 7)} onto ${step.base.slice(0, 7)}${because}`
  }
}

/** One line of `orch train ls` / `orch status`. */
export const carLine = (car: TrainCar, position: number): string =>
  `  ${position}. ${car.sessionId} PR #${car.prNumber} (${car.branch}): ${waitingOn(car, position)}`

/** The head car's pull request as the repohost shows it now. */
export interface PullFacts {
  readonly state: "open" | "draft" | "merged" | "closed"
  readonly approved: boolean
  /** The PR's head sha. */
  readonly head: string
  /** The default branch's head sha, now. */
  readonly base: string
  /** The head contains `base` (the merge base of the two is `base`). */
  readonly upToDate: boolean
  /** The checks of `head` (not of any older head). */
  readonly checks: "passing" | "failing" | "pending" | "none"
  readonly failingChecks: ReadonlyArray<FailingCheck>
}

/** What update-branch answered. */
export type UpdateAnswer =
  | { readonly _tag: "Updated" }
  | { readonly _tag: "AlreadyUpToDate" }
  | { readonly _tag: "Conflict" }
  | { readonly _tag: "HeadMoved" }
  /** No answer that says what happened (a network error, a 5xx): the next look decides. */
  | { readonly _tag: "Unknown"; readonly reason: string }

/** What the merge (with the head sha pinned) answered. */
export type MergeAnswer =
  | { readonly _tag: "Merged"; readonly sha?: string }
  /** Refused (the head moved, not mergeable): nothing merged; the next look decides again. */
  | { readonly _tag: "Refused"; readonly reason: string }
  /** No answer that says whether it merged: the next look at the PR says. */
  | { readonly _tag: "Unknown"; readonly reason: string }
