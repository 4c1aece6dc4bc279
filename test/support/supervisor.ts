/**
 * A supervisor a test drives: its services (Supervisor.layerTest: no loop runs, nothing adopted), built in the
 * test's scope on what the test provides (the store, the event log, the notifier router, the SessionManager, the
 * config source and the plugins), with the steps a test takes under one name each.
 */
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { Adoption } from "../../actors/adoption.ts"
import { IssueWatch } from "../../actors/issue-watch.ts"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import { ProbeCycle } from "../../actors/probe-cycle.ts"
import { PullRequestWatch } from "../../actors/pull-request-watch.ts"
import { SessionActors } from "../../actors/session-actors.ts"
import { SupervisorLoops } from "../../actors/supervisor-loops.ts"
import { Supervisor } from "../../actors/supervisor.ts"
import type { OrchestratorConfig } from "../../src/config/schema.ts"
import type { OrchEvent } from "../../src/domain/event.ts"
import { PluginLayers, type SlotLayers } from "../../src/plugins/layers.ts"
import type { NotifierShape } from "../../src/plugins/notifier/Notifier.ts"
import { ProjectPlugins } from "../../src/plugins/ProjectPlugins.ts"
import { SessionManager } from "../../src/sessions/SessionManager.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"

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

type Routing = OrchestratorConfig["notificationRouting"]

/** Every priority routed to the one notifier `name`. */
export const routedTo = (name: string): Routing => ({ urgent: [name], action: [name], warning: [name], info: [name] })

export interface DrivenOn {
  readonly config: OrchestratorConfig
  readonly store: SessionStore["Service"]
  readonly events: EventLog["Service"]
  /** The Layers in these slots for every project (the slots' `layerTest` fakes); the rest are what the config names. */
  readonly replace: SlotLayers
  /** The notifiers by name, and which of them each priority goes to. */
  readonly notifiers: ReadonlyMap<string, NotifierShape>
  readonly routing: Routing
}

/**
 * drivenSupervisor on `config`, its projects' plugins with the test's Layers in the slots it replaces, over the test's
 * store and event log. `settle` is the receipt that the actors handled all they were offered and the notifications
 * they sent went out; `context` is the services it was built on.
 */
export const drivenSupervisorOn = (options: DrivenOn) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Layer.mergeAll(NotifierRouter.layer(options.notifiers, options.routing), SessionManager.layerNoDeps(options.config)).pipe(
        Layer.provideMerge(ProjectPlugins.layer({ supervisor: true })),
        Layer.provideMerge(Layer.succeed(PluginLayers, { replace: options.replace, register: {} })),
        Layer.provideMerge(Layer.mergeAll(Layer.succeed(SessionStore, options.store), Layer.succeed(EventLog, options.events))),
        Layer.provideMerge(NodeServices.layer)
      )
    )
    const supervisor = yield* drivenSupervisor.pipe(Effect.provide(context))
    const routed = yield* NotifierRouter.use(Effect.succeed).pipe(Effect.provide(context))
    return { ...supervisor, settle: Effect.andThen(supervisor.drained(), routed.settled), context }
  })

/**
 * The events `events` appends from now on, for a test to wait on as receipts: `until(matches, count)` returns the
 * events that match once `count` of them were appended. A receipt that does not come within 5 s of real time fails
 * the test with what was appended instead (the TestClock does not move by itself).
 */
export const eventReceipts = (events: EventLog["Service"]) =>
  Effect.gen(function*() {
    const appended = yield* Queue.unbounded<OrchEvent>()
    yield* events.stream.pipe(Stream.runForEach((event) => Queue.offer(appended, event)), Effect.forkScoped({ startImmediately: true }))
    const seen: Array<OrchEvent> = []
    const until = (matches: (event: OrchEvent) => boolean, count = 1) =>
      Effect.gen(function*() {
        const guard = Effect.callback<never, Error>((resume) => {
          const what = () => `the receipt did not come within 5 s; appended: ${seen.map((event) => event.type).join(", ") || "nothing"}`
          const timer = setTimeout(() => resume(Effect.fail(new Error(what()))), 5000)
          return Effect.sync(() => clearTimeout(timer))
        })
        const collect = Effect.gen(function*() {
          while (seen.filter(matches).length < count) seen.push(yield* Queue.take(appended))
          return seen.filter(matches)
        })
        return yield* Effect.raceFirst(collect, guard)
      })
    return { until, ofType: (type: string, count = 1) => until((event) => event.type === type, count) }
  })
