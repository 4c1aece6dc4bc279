/**
 * The merge train (`mergeTrain: true` on a project; docs/supervisor.md "Merge train"): each round, cars join and
 * leave by the session records, then the head car takes its next step, decided by rules/merge-train.ts on what the
 * repohost says of its pull request now. Every step with a side effect is written down before it (its intent) and
 * its outcome after it, with crash points around the effect; a train left by a crash is finished by the next
 * round's look, which is also what recovery at the supervisor's start is. Rounds come every poll interval, and at
 * once when a session of a train project changes what the train decides on (its checks, review, status or PR):
 * the webhook that says its checks passed moves the train on then, not a poll later.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { ConfigSource, type ConfigSourceShape } from "../src/config/ConfigSource.ts"
import { projectReactions } from "../src/config/normalize.ts"
import type { ProjectConfig } from "../src/config/schema.ts"
import { isEnded, type SessionRecord } from "../src/domain/session.ts"
import type { TrainCar, TrainFile } from "../src/domain/train.ts"
import { mergeMethodOf, type ScmTrainShape } from "../src/plugins/scm/Scm.ts"
import { atCrashPoint } from "../src/store/crash-points.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { SessionStore, type SessionStoreShape } from "../src/store/SessionStore.ts"
import { type TrainError, TrainStore } from "../src/store/TrainStore.ts"
import {
  afterMerge,
  afterTellRebase,
  afterUpdate,
  type Candidate,
  carsInOrder,
  decideHead,
  type Decision,
  headCar,
  syncCars,
  type TrainAction
} from "./rules/merge-train.ts"
import { notReadyReasons, notReadySentence } from "./rules/train-readiness.ts"
import { SessionCommands } from "./session-commands.ts"
import { WatchedProjects, type WatchedProjectsShape } from "./watched-projects.ts"

/** Steps the head car may take in one round: an update or a merge is followed at once by a look at its result. */
const STEPS_PER_ROUND = 4

/**
 * When the train's next round is due: a poll interval after the last, or at once when a session of a train project
 * changed what the train decides on (its status, checks, review, mergeability or PR state) since last seen.
 */
const dueRound = Effect.fnUntraced(function*(sessions: SessionStoreShape, projects: WatchedProjectsShape, configs: ConfigSourceShape) {
  const wake = yield* Queue.sliding<void>(1)
  const seen = new Map<string, string>()
  yield* sessions.changes.pipe(
    Stream.runForEach(({ sessionId, record }) => {
      if (record === null || record.pr === null || projects.get(record.projectId)?.project.mergeTrain !== true) return Effect.void
      const facts = JSON.stringify([record.status, record.checks, record.review, record.mergeable, record.pr.state])
      if (seen.get(sessionId) === facts) return Effect.void
      seen.set(sessionId, facts)
      return Effect.asVoid(Queue.offer(wake, undefined))
    }),
    Effect.forkScoped
  )
  return Effect.flatMap(configs.current, ({ pollIntervalMs }) => Effect.asVoid(Effect.timeoutOption(Queue.take(wake), pollIntervalMs)))
})

/** A session record as a candidate car. */
export const candidateOf = (record: SessionRecord): Candidate | undefined =>
  record.pr === null || record.role === "orchestrator"
    ? undefined
    : {
      sessionId: record.sessionId,
      prNumber: record.pr.number,
      branch: record.branch,
      priority: record.priority ?? 0,
      ready: record.status === "mergeable" && record.pr.state === "open",
      prState: record.pr.state,
      approved: record.review === "approved",
      checksFailing: record.checks === "failing"
    }

export const rebaseMessage = (car: TrainCar, defaultBranch: string) =>
  `The merge train could not bring PR #${car.prNumber} up to date with ${defaultBranch}: it conflicts with it. ` +
  `Rebase ${car.branch} on origin/${defaultBranch} (git fetch origin && git rebase origin/${defaultBranch}), resolve the conflicts, ` +
  `run the checks and push (git push --force-with-lease); the train takes it again once the new head is green.`

/** Whether a person's merge (the dashboard) joined the train, or what keeps it out ("its checks fail and …"). */
export type JoinAnswer = { readonly _tag: "Joined"; readonly position: number } | { readonly _tag: "NotReady"; readonly reason: string }

export interface MergeTrainShape {
  /** One round for every project with a train: joins, leaves, and the head car's next steps. */
  readonly round: Effect.Effect<void, TrainError>
  /** Waits for the next round: the poll interval, or less when a train project's session changed what the train decides on. */
  readonly due: Effect.Effect<void>
  /** A person asked to merge a session's PR in a project with a train: it joins the train if it is approved and green. */
  readonly join: (record: SessionRecord) => Effect.Effect<JoinAnswer, TrainError>
  /** Every project's train (with the projects whose config has `mergeTrain`). */
  readonly trains: Effect.Effect<ReadonlyArray<TrainFile>, TrainError>
}

export class MergeTrain extends Context.Service<MergeTrain, MergeTrainShape>()("orch/actors/MergeTrain") {
  static readonly layer = Layer.effect(
    MergeTrain,
    Effect.gen(function*() {
      const sessions = yield* SessionStore
      const store = TrainStore.make(sessions.paths.root, yield* EventLog)
      const projects = yield* WatchedProjects
      const commands = yield* SessionCommands
      const configs = yield* ConfigSource
      const due = yield* dueRound(sessions, projects, configs)

      const candidatesOf = Effect.fnUntraced(function*(projectId: string) {
        const { records } = yield* sessions.list
        return records
          .filter((record) => record.projectId === projectId && !isEnded(record.status))
          .flatMap((record) => candidateOf(record) ?? [])
      })

      /** Applies a decision the rules make of the train as it is on disk now, and answers its action. */
      const decide = (projectId: string, f: (file: TrainFile, car: TrainCar, nowIso: string) => Decision | undefined) => {
        let action: TrainAction = { _tag: "None" }
        let car: TrainCar | undefined
        return Effect.map(
          store.change(projectId, (file, nowIso) => {
            car = headCar(file)
            const decision = car === undefined ? undefined : f(file, car, nowIso)
            if (decision === undefined) return {}
            action = decision.action
            return { file: decision.file, events: decision.events }
          }),
          () => ({ action, car })
        )
      }

      const act = Effect.fnUntraced(function*(project: ProjectConfig, train: ScmTrainShape, car: TrainCar, action: TrainAction) {
        switch (action._tag) {
          case "None":
            return false
          case "UpdateBranch": {
            yield* atCrashPoint("train update-branch: before")
            const answer = yield* train.updateBranch(car.prNumber, action.expectedHead)
            yield* atCrashPoint("train update-branch: after")
            yield* decide(project.id, (file, head, at) => (head.sessionId === car.sessionId ? afterUpdate(file, head, answer, at) : undefined))
            return answer._tag !== "Unknown"
          }
          case "Merge": {
            yield* atCrashPoint("train merge: before")
            const answer = yield* train.mergeAt(car.prNumber, mergeMethodOf(project.scm), action.head)
            yield* atCrashPoint("train merge: after")
            yield* decide(project.id, (file, head, at) => (head.sessionId === car.sessionId ? afterMerge(file, head, answer, at) : undefined))
            return answer._tag !== "Unknown"
          }
          case "TellRebase": {
            yield* atCrashPoint("train tell-rebase: before")
            // The repohost says the PR conflicts as well: where `merge-conflicts` tells agents, it tells this one (once).
            const conflicts = projectReactions(yield* configs.current, project)["merge-conflicts"]
            const problem = conflicts.action === "send-to-agent" && conflicts.auto
              ? undefined
              : yield* commands.send(car.sessionId, rebaseMessage(car, project.defaultBranch)).pipe(
                Effect.as(undefined),
                Effect.catch((error) => Effect.succeed(error.message))
              )
            yield* atCrashPoint("train tell-rebase: after")
            yield* decide(project.id, (file, head) => (head.sessionId === car.sessionId ? afterTellRebase(file, head, problem) : undefined))
            return false
          }
        }
      })

      /** The head car's next step: a fresh look, the decision written down, then its effect and outcome. */
      const step = Effect.fnUntraced(function*(project: ProjectConfig, train: ScmTrainShape) {
        const head = headCar(yield* store.read(project.id))
        if (head === undefined) return false
        const facts = yield* Effect.result(train.look(head.prNumber, project.defaultBranch))
        if (facts._tag === "Failure") {
          const problem = facts.failure.message
          // Said on the car (orch train ls, status, the dashboard) until a look succeeds; the next round tries again.
          yield* store.change(project.id, (file) =>
            file.cars.some((c) => c.sessionId === head.sessionId && c.problem !== problem)
              ? { file: { ...file, cars: file.cars.map((c) => (c.sessionId === head.sessionId ? { ...c, problem } : c)) } }
              : {})
          return false
        }
        const { action, car } = yield* decide(
          project.id,
          (file, car, at) => (car.sessionId === head.sessionId ? decideHead(file, car, facts.success, Date.parse(at), at) : undefined)
        )
        if (car === undefined || car.sessionId !== head.sessionId) return true
        if (action._tag === "None") {
          // A car that merged or left makes room for the next at once.
          return !(yield* store.read(project.id)).cars.some((c) => c.sessionId === head.sessionId)
        }
        return yield* act(project, train, car, action)
      })

      /**
       * The heads of PRs that left the train and whose records say ready again: one that has a new head (a fix
       * pushed between two rounds) joins again even if the train never saw it not ready.
       */
      const headsOfLeavers = Effect.fnUntraced(function*(project: ProjectConfig, train: ScmTrainShape, candidates: ReadonlyArray<Candidate>) {
        const heads = new Map<string, string>()
        for (const leaver of (yield* store.read(project.id)).left) {
          const candidate = candidates.find((c) => c.sessionId === leaver.sessionId)
          if (candidate === undefined || !candidate.ready || leaver.head === "") continue
          const facts = yield* Effect.result(train.look(candidate.prNumber, project.defaultBranch))
          if (facts._tag === "Success") heads.set(leaver.sessionId, facts.success.head)
        }
        return heads
      })

      const roundOf = Effect.fnUntraced(function*(project: ProjectConfig, train: ScmTrainShape) {
        const candidates = yield* candidatesOf(project.id)
        const heads = yield* headsOfLeavers(project, train, candidates)
        yield* store.change(project.id, (file, at) => syncCars(file, candidates, at, heads))
        for (let i = 0; i < STEPS_PER_ROUND; i++) {
          if (!(yield* step(project, train))) return
        }
      })

      const round = Effect.fn("MergeTrain.round")(function*() {
        for (const slots of projects.all()) {
          const train = slots.scm?.train
          if (slots.project.mergeTrain !== true || train === undefined) continue
          yield* roundOf(slots.project, train)
        }
      })

      const join = Effect.fn("MergeTrain.join")(function*(record: SessionRecord) {
        const candidate = candidateOf(record)
        if (candidate === undefined || !candidate.ready) {
          const defaultBranch = projects.get(record.projectId)?.project.defaultBranch ?? "the default branch"
          return { _tag: "NotReady", reason: notReadySentence(notReadyReasons(record, defaultBranch)) } satisfies JoinAnswer
        }
        // A person's word lets a PR that left the train join again at once.
        const others = (yield* candidatesOf(record.projectId)).filter((c) => c.sessionId !== record.sessionId)
        const file = yield* store.change(
          record.projectId,
          (file, at) => syncCars({ ...file, left: file.left.filter((l) => l.sessionId !== record.sessionId) }, [...others, candidate], at)
        )
        const cars = carsInOrder(file)
        return { _tag: "Joined", position: cars.findIndex((car) => car.sessionId === record.sessionId) + 1 } satisfies JoinAnswer
      })

      const trains = Effect.suspend(() =>
        Effect.forEach(projects.all().filter((slots) => slots.project.mergeTrain === true), (slots) => store.read(slots.project.id))
      )

      return MergeTrain.of({ round: round(), due, join, trains })
    })
  )
}
