/**
 * What admission and a batch read of where sessions can go, at each round: why no host could take one of a
 * project's sessions now, and what this machine's reserved sessions already take.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { LOCAL } from "../config/host-spec.ts"
import type { OrchestratorConfig } from "../config/schema.ts"
import { heldHosts, type Hold } from "../domain/holds.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { parsePs, treeRssOf } from "../domain/session-size.ts"
import { hostOf, type SessionRecord } from "../domain/session.ts"
import type { ControlDirUnusable } from "../hosts/errors.ts"
import { hostViewsOf } from "../hosts/host-watch.ts"
import { PS_COMMAND } from "../plugins/runtime/host-probe.ts"
import { type Liveness, Runtime } from "../plugins/runtime/Runtime.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { admissionReadings, placementBlocker } from "./host-choice.ts"
import { projectsOf } from "./project-lookup.ts"
import { readMeasured } from "./reservations.ts"
import { SessionPlugins } from "./SessionPlugins.ts"

export interface PlacementFactsShape {
  /**
   * Why no host could take a session of each project now: with hosts, on the host watch's last figures, hosts held back
   * for the project left out; without, this machine when it is held back for the project.
   */
  readonly unplaceable: (
    config: OrchestratorConfig,
    records: ReadonlyArray<SessionRecord>,
    projectIds: ReadonlyArray<string>,
    holds: ReadonlyArray<Hold>
  ) => Effect.Effect<Readonly<Record<string, string | undefined>>, ControlDirUnusable>
  /**
   * What each of this machine's reserved sessions already takes, read now (its agent's process tree: one probe per
   * project, one `ps`): admission then holds only the rest of its expected size. Only where this machine's memory is
   * admission's budget (no hosts configured); nothing when it cannot be read (the whole size is held then).
   */
  readonly usedHere: (config: OrchestratorConfig, reserved: ReadonlyArray<SessionRecord>) => Effect.Effect<ReadonlyMap<string, number>>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const plugins = yield* SessionPlugins

  const unplaceable = Effect.fnUntraced(function*(
    config: OrchestratorConfig,
    records: ReadonlyArray<SessionRecord>,
    projectIds: ReadonlyArray<string>,
    holds: ReadonlyArray<Hold>
  ) {
    const reasons: Record<string, string | undefined> = {}
    const now = yield* Clock.currentTimeMillis
    const mine = projectsOf(config).filter((p) => projectIds.includes(p.id))
    if (Object.keys(config.hosts).length === 0) {
      for (const project of mine) {
        const local = heldHosts(holds, project.id, now, clockTime(now)).get(LOCAL)
        if (local !== undefined) reasons[project.id] = `this machine: ${local}`
      }
      return reasons
    }
    // Admission runs in the supervisor: its own host watch's views.
    const views = hostViewsOf(store.paths.hosts, process.pid)
    const readings = yield* admissionReadings(yield* plugins.connections(config), config, views)
    const { reserved } = yield* readMeasured(store.paths.root, records)
    for (const project of mine) {
      reasons[project.id] = placementBlocker(config, project, records, reserved, readings, heldHosts(holds, project.id, now, clockTime(now)))
    }
    return reasons
  })

  /** The agents' pids of this machine's reserved sessions: one probe per project. */
  const agentPids = Effect.fnUntraced(function*(config: OrchestratorConfig, local: ReadonlyArray<SessionRecord>) {
    const pids = new Map<string, number>()
    for (const project of projectsOf(config)) {
      const mine = local.filter((r) => r.projectId === project.id)
      if (mine.length === 0) continue
      const probed = yield* Runtime.use((runtime) => runtime.probe(mine.map((r) => r.runtime!))).pipe(
        plugins.provide(config, project),
        Effect.orElseSucceed(() => new Map<string, Liveness>())
      )
      for (const record of mine) {
        const state = probed.get(record.runtime!.id)
        if (state?._tag === "Alive" && state.pid !== undefined) pids.set(record.sessionId, state.pid)
      }
    }
    return pids
  })

  const usedHere = Effect.fnUntraced(function*(config: OrchestratorConfig, reserved: ReadonlyArray<SessionRecord>) {
    const local = reserved.filter((r) => hostOf(r) === LOCAL && r.runtime !== null)
    if (local.length === 0 || Object.keys(config.hosts).length > 0) return new Map<string, number>()
    const pids = yield* agentPids(config, local)
    if (pids.size === 0) return new Map<string, number>()
    const ps = yield* Effect.flatMap(plugins.connections(config), (connections) => connections.run(LOCAL, PS_COMMAND)).pipe(
      Effect.map((answer) => (answer.exitCode === 0 ? answer.stdout : "")),
      Effect.orElseSucceed(() => "")
    )
    const treeRss = treeRssOf(parsePs(ps))
    return new Map([...pids].flatMap(([sessionId, pid]) => {
      const bytes = treeRss(pid)
      return bytes === undefined ? [] : [[sessionId, bytes] as const]
    }))
  })

  return PlacementFacts.of({ unplaceable, usedHere })
})

export class PlacementFacts extends Context.Service<PlacementFacts, PlacementFactsShape>()("orch/sessions/PlacementFacts") {
  /** Needs the store and SessionPlugins. */
  static readonly layer = Layer.effect(PlacementFacts, make)
}
