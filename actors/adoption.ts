/**
 * The supervisor's start: it finishes or undoes what a crash cut short (SessionManager's reconcile: spawns undone,
 * kills finished, queued starts recovered, each a line `orch start` says), adopts every live session (an actor
 * each, `session.adopted`), and reports terminal sessions named like orch's (`<prefix>-<n>`, `<prefix>-orchestrator`)
 * that have no record (`session.orphaned`; orch leaves them alone). After the first probe cycle, one
 * `supervisor.adopted` says how many it adopted and what the probe found.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { newNotification } from "../src/domain/notification.ts"
import type { ProjectSlots } from "../src/plugins/ProjectPlugins.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import type { StoreError } from "../src/store/errors.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { ActorEscalations } from "./actor-escalations.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { SessionActors } from "./session-actors.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"
import { WatchedProjects } from "./watched-projects.ts"

/** What a probe cycle found of the sessions it probed. */
export type ProbedCounts = Record<"alive" | "exited" | "gone" | "unknown", number>

export interface AdoptionShape {
  /** Recovery, then every live session adopted, then orphaned terminal sessions reported. */
  readonly adopt: () => Effect.Effect<void, StoreError>
  /** What recovery did at this supervisor's start, a line each, for `orch start` to say. */
  readonly recovered: Effect.Effect<ReadonlyArray<string>>
  /** After each probe cycle: the first one after adoption is reported (`supervisor.adopted`). */
  readonly probed: (counts: ProbedCounts) => Effect.Effect<void, StoreError>
}

export class Adoption extends Context.Service<Adoption, AdoptionShape>()("orch/actors/Adoption") {
  static readonly layer = Layer.effect(
    Adoption,
    Effect.gen(function*() {
      const manager = yield* SessionManager
      const store = yield* SessionStore
      const events = yield* EventLog
      const router = yield* NotifierRouter
      const actors = yield* SessionActors
      const escalations = yield* ActorEscalations
      const projects = yield* WatchedProjects
      const { loops } = yield* SupervisorLoops
      const recovered: Array<string> = []
      /** Sessions adopted at start whose first probe is still to come (none when none were). */
      let awaitingFirstProbe: number | undefined

      const orphans = Effect.fnUntraced(function*({ project, runtime }: ProjectSlots, known: Set<string>) {
        let names: ReadonlyArray<string> = []
        if (runtime.list !== undefined) {
          yield* loops.adoption.attempt(
            Effect.map(runtime.list(), (listed) => void (names = listed)),
            `orch does not look for ${project.id}'s terminal sessions without a record until it restarts`
          )
        }
        const pattern = new RegExp(`^${project.sessionPrefix.replace(/[-]/g, "\\-")}-(\\d+|orchestrator)$`)
        for (const name of names.filter((n) => pattern.test(n) && !known.has(n))) {
          known.add(name)
          yield* events.append({
            type: "session.orphaned",
            sessionId: name,
            projectId: project.id,
            message: "a terminal session named like orch's has no record; orch leaves it alone"
          })
          yield* router.notify(
            yield* newNotification({
              type: "session.orphaned",
              priority: "warning",
              title: `${name}: terminal session without a record`,
              message: `The ${runtime.name} session ${name} looks like one of orch's but orch has no record of it. Attach to it to see what it is, or end it.`,
              projectId: project.id
            })
          )
        }
      })

      const adopt = Effect.fn("Adoption.adopt")(function*() {
        yield* loops.adoption.attempt(
          Effect.flatMap(
            manager.reconcile(),
            (done) => Effect.forEach(done, ({ line }) => Effect.andThen(Effect.logInfo(line), Effect.sync(() => void recovered.push(line))), { discard: true })
          ),
          "the next session command undoes half-made spawns"
        )
        const { records } = yield* store.list
        const live = records.filter(projects.isLive)
        // One a supervisor stopped watching stays so until a person acts (actor-escalations.ts).
        for (const record of live.filter(escalations.isEscalated)) {
          yield* Effect.logWarning(
            `${record.sessionId}: orch stopped watching it (its actor crashed too often); \`orch session restore ${record.sessionId}\` has orch watch it again`
          )
        }
        const adopted = live.filter((record) => !escalations.isEscalated(record))
        for (const record of adopted) {
          yield* actors.start(record)
          yield* events.append({ type: "session.adopted", sessionId: record.sessionId, projectId: record.projectId, issueId: record.issueId })
        }
        if (adopted.length > 0) awaitingFirstProbe = adopted.length
        const known = new Set(records.map((r) => r.sessionId))
        for (const slots of projects.all()) yield* orphans(slots, known)
      })

      const probed = (counts: ProbedCounts) =>
        Effect.suspend(() => {
          const sessions = awaitingFirstProbe
          if (sessions === undefined) return Effect.void
          awaitingFirstProbe = undefined
          const found = Object.entries(counts).filter(([, n]) => n > 0).map(([state, n]) => `${n} ${state}`).join(", ") || "nothing to probe"
          return Effect.asVoid(events.append({
            type: "supervisor.adopted",
            message: `pid ${process.pid} adopted ${sessions} session(s); first probe: ${found}`,
            data: { pid: process.pid, sessions, ...counts }
          }))
        })

      return Adoption.of({ adopt, recovered: Effect.sync(() => [...recovered]), probed })
    })
  )
}
