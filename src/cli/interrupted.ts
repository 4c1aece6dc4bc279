/**
 * What `orch status` and `orch session ls` do when a listed spawn was interrupted (its process died half-way) and no
 * supervisor runs: undo it as every write command does (SessionManager's reconcile), under the config the session
 * was spawned with, and say in one line each what was undone. A running supervisor undoes it itself within a probe
 * cycle; one that holds its socket without answering is left alone (nothing is done in its place). Loaded only when
 * such a record is listed: those commands otherwise read records and load no config or plugin.
 */
import * as Effect from "effect/Effect"
import { Host } from "../config/host.ts"
import type { SessionRecord } from "../domain/session.ts"
import { connectSupervisor } from "../ipc/liveness.ts"
import { SessionManager } from "../sessions/SessionManager.ts"
import { dataDir } from "../store/paths.ts"
import { configForSession } from "./session-config.ts"

export interface UndoReport {
  /** One line per spawn undone. */
  readonly lines: ReadonlyArray<string>
  /** Spawns that stay interrupted, and why. */
  readonly warnings: ReadonlyArray<string>
}

export const undoInterruptedSpawns = Effect.fn("cli.undoInterruptedSpawns")(function*(interrupted: ReadonlyArray<SessionRecord>) {
  const found = yield* Effect.scoped(Effect.map(connectSupervisor(dataDir(yield* Host)), (connection) => connection._tag))
  if (found !== "NotRunning") return { lines: [], warnings: [] } satisfies UndoReport
  const lines: Array<string> = []
  const warnings: Array<string> = []
  const settled = new Set<string>()
  // One reconcile per config: it undoes every interrupted spawn of that config's projects at once.
  for (const record of interrupted) {
    if (settled.has(record.sessionId)) continue
    settled.add(record.sessionId)
    const result = yield* configForSession(record.sessionId).pipe(
      Effect.flatMap((config) =>
        SessionManager.use((sessions) => sessions.reconcile()).pipe(
          Effect.map((undone) => ({ config, undone })),
          Effect.provide(SessionManager.layer(config))
        )
      ),
      Effect.result
    )
    if (result._tag === "Failure") {
      // Gone already: another command undid it first.
      if (!("_tag" in result.failure && result.failure._tag === "SessionNotFound")) {
        warnings.push(
          `${record.sessionId} was cut short (a spawn or a kill whose process died), and orch could not undo or finish it: ${result.failure.message}`
        )
      }
      continue
    }
    const { config, undone } = result.success
    for (const done of undone) {
      settled.add(done.sessionId)
      lines.push(done.line)
    }
    // Not undone here, and not by another command meanwhile: its project is not in the config it runs under.
    if (!undone.some((spawn) => spawn.sessionId === record.sessionId) && !Object.values(config.projects).some((p) => p.id === record.projectId)) {
      warnings.push(
        `${record.sessionId} was cut short (a spawn or a kill whose process died), and orch could not undo or finish it: ${
          config.configPath ?? "the config"
        } has no project ${record.projectId}`
      )
    }
  }
  return { lines, warnings } satisfies UndoReport
})
