/**
 * A supervisor a test drives: its services (Supervisor.layerTest: no loop runs, nothing adopted), built in the
 * test's scope on what the test provides (the store, the event log, the notifier router, the SessionManager, the
 * config source and the plugins), with the steps a test takes under one name each.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Adoption } from "../../actors/adoption.ts"
import { IssueWatch } from "../../actors/issue-watch.ts"
import { ProbeCycle } from "../../actors/probe-cycle.ts"
import { PullRequestWatch } from "../../actors/pull-request-watch.ts"
import { SessionActors } from "../../actors/session-actors.ts"
import { SupervisorLoops } from "../../actors/supervisor-loops.ts"
import { Supervisor } from "../../actors/supervisor.ts"

const steps = Effect.gen(function*() {
  const supervisor = yield* Supervisor
  const actors = yield* SessionActors
  return {
    ...supervisor,
    /** One probe cycle. */
    cycle: (yield* ProbeCycle).cycle,
    /** What `orch start` does first: recovery, adoption, orphans. */
    adopt: (yield* Adoption).adopt,
    pollPullRequests: (yield* PullRequestWatch).poll,
    pollIssues: (yield* IssueWatch).poll,
    /** Offers an observation to a session's actor. */
    observe: actors.observe,
    /** The receipt that every actor handled all it was offered before. */
    drained: actors.drained,
    loops: (yield* SupervisorLoops).loops
  }
})

export const drivenSupervisor = Effect.gen(function*() {
  const services = yield* Layer.build(Supervisor.layerTest)
  return { ...(yield* Effect.provide(steps, services)), services }
})
