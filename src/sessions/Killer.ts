/**
 * `orch session kill`: the kill written down first (`killing`, the kill's journal), then its steps (KillSteps). A
 * start cut short is undone instead, a kill cut short is finished (reconcile), and a second kill changes nothing.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigSource } from "../config/ConfigSource.ts"
import { processStartTime } from "../store/process-liveness.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { KillSteps } from "./KillSteps.ts"
import type { KillError } from "./procedure-errors.ts"
import { projectToEndOf } from "./project-lookup.ts"
import { Reconciler } from "./Reconciler.ts"
import { nowIso } from "./record-update.ts"
import type { Killed } from "./SessionOps.ts"
import { SessionPlugins } from "./SessionPlugins.ts"

export interface KillerShape {
  /** Ends the session: its agent stopped, its worktree saved (to its rescue ref) and removed, its record killed. */
  readonly kill: (sessionId: string) => Effect.Effect<Killed, KillError>
}

const make = Effect.gen(function*() {
  const store = yield* SessionStore
  const configs = yield* ConfigSource
  const plugins = yield* SessionPlugins
  const reconciler = yield* Reconciler
  const steps = yield* KillSteps

  const kill = Effect.fn("Sessions.kill")(function*(sessionId: string) {
    const config = yield* configs.current
    const before = yield* store.read(sessionId)
    // Killing is done once: a second kill changes nothing and records no second event.
    if (before.status === "killed" && before.killing === undefined) return { record: before, alreadyKilled: true } satisfies Killed
    const project = yield* projectToEndOf(config, before)
    const undone = (yield* reconciler.reconcile()).find((done) => done.sessionId === sessionId && done.kind === "undone")
    // A start cut short is undone rather than killed; a kill cut short was just finished: either way, said so.
    if (undone !== undefined) return { record: before, undone: undone.line } satisfies Killed
    const record = yield* store.read(sessionId)
    if (record.status === "killed") return { record, ...(record.rescueRef !== undefined ? { rescuedTo: record.rescueRef } : {}) } satisfies Killed
    yield* plugins.refuseUnreachable(config, record, "session kill")
    const startTime = processStartTime(process.pid)
    const journal = { pid: process.pid, ...(startTime !== undefined ? { startTime } : {}), at: yield* nowIso }
    yield* store.write({ ...record, killing: journal })
    // A kill that failed (said so; the person may try again) is no kill to finish later: its journal goes.
    const { killed, removed } = yield* steps.finish(config, project, { ...record, killing: journal }).pipe(
      Effect.tapError(() =>
        Effect.flatMap(store.read(sessionId), ({ killing: _, ...rest }) => store.write(rest)).pipe(
          Effect.catch((error) => Effect.logWarning(`${sessionId}'s record keeps its kill journal (${error.message}); the next command finishes the kill`))
        )
      )
    )
    const { killing: _, ...shown } = killed
    return { record: shown, ...removed } satisfies Killed
  })

  return Killer.of({ kill })
})

export class Killer extends Context.Service<Killer, KillerShape>()("orch/sessions/Killer") {
  /** Needs the config in force, the store, SessionPlugins, KillSteps and the Reconciler. */
  static readonly layer = Layer.effect(Killer, make)
}
