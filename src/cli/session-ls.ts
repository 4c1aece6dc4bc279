/** What `orch session ls [--json]` does (its command is in session.ts, so the command tree loads none of this). */
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { LOCAL } from "../config/host-spec.ts"
import { configProblem } from "../config/problem.ts"
import { asAgentGone, hostOf, isEnded, type SessionRecord, workLabel } from "../domain/session.ts"
import type { Liveness } from "../plugins/runtime/Runtime.ts"
import { asListed } from "../store/spawner.ts"
import { age, table } from "./format.ts"
import { sortRecords } from "./status-run.ts"

const loadSessions = () => import("./session-context.ts")

const livenessCell = (state: Liveness | undefined) =>
  state === undefined ? "-" : state._tag === "Exited" ? `exited${state.exitCode !== undefined ? ` (${state.exitCode})` : ""}` : state._tag.toLowerCase()

/** A live session whose terminal the probe found gone, or its agent exited, is shown as ended as it has (asAgentGone). */
const asProbed = (record: SessionRecord, liveness: ReadonlyMap<string, Liveness>) => {
  const state = record.runtime === null ? undefined : liveness.get(record.runtime.id)
  return state?._tag === "Gone" || state?._tag === "Exited" ? asAgentGone(record) : record
}

/** A session's terminal as the probe found it; "unknown" for a live session whose host did not answer the probe. */
const runtimeCell = (record: SessionRecord, liveness: ReadonlyMap<string, Liveness>) =>
  record.runtime === null
    ? "-"
    : liveness.has(record.runtime.id)
    ? livenessCell(liveness.get(record.runtime.id))
    : isEnded(record.status)
    ? "-"
    : "unknown"

export const listSessions = Effect.fn("cli.session.ls")(function*({ json }: { readonly json: boolean }) {
  const { withLocalSessionsAnywhere } = yield* Effect.promise(loadSessions)
  // Like `orch status`, it lists with no config, or one with an error (said once): what needs one shows unknown.
  const { value: { records, problems, liveness, unprobed }, unusable } = yield* withLocalSessionsAnywhere((sessions) => sessions.probeAll())
  // A record that cannot be read is said, as `orch status` says it: a session must never vanish without a word.
  for (const problem of problems) yield* Console.error(`orch: warning: ${problem}`)
  if (unusable !== undefined) {
    const { problem, location } = configProblem(unusable)
    yield* Console.error(
      `orch: warning: the config cannot be used (${problem}${
        location !== undefined ? `, ${location}` : ""
      }); sessions are listed without it, and a terminal only it could reach shows unknown`
    )
  }
  if (unprobed.length > 0) {
    const { unprobedWarnings } = yield* Effect.promise(() => import("./unprobed-projects.ts"))
    for (const warning of yield* unprobedWarnings(unprobed)) yield* Console.error(`orch: warning: ${warning}`)
  }
  const sorted = sortRecords(records).map(asListed).map((record) => asProbed(record, liveness))
  // Spawns whose process died half-way show as interrupted; with no supervisor to undo them, this command does.
  const interrupted = sorted.filter((r) => r.status === "interrupted")
  const undone = interrupted.length === 0
    ? { lines: [], warnings: [] }
    : yield* Effect.flatMap(Effect.promise(() => import("./interrupted.ts")), ({ undoInterruptedSpawns }) => undoInterruptedSpawns(interrupted))
  for (const warning of undone.warnings) yield* Console.error(`orch: warning: ${warning}`)
  if (json) {
    for (const line of undone.lines) yield* Console.error(`orch: ${line}`)
    return yield* Console.log(JSON.stringify(sorted.map((r) => ({ ...r, host: hostOf(r), runtimeState: runtimeCell(r, liveness) }))))
  }
  if (sorted.length === 0) {
    const { noSessionsHint, projectTrackersHere } = yield* Effect.promise(() => import("./empty-hints.ts"))
    return yield* Console.log(noSessionsHint(yield* projectTrackersHere))
  }
  const now = yield* Clock.currentTimeMillis
  // A HOST column once a session runs on another host.
  const hosts = sorted.some((r) => hostOf(r) !== LOCAL)
  yield* Console.log(table(
    ["SESSION", "ISSUE", ...(hosts ? ["HOST"] : []), "STATUS", "RUNTIME", "WORKSPACE", "AGE"],
    sorted.map((r) => [
      r.sessionId,
      workLabel(r),
      ...(hosts ? [hostOf(r)] : []),
      r.status,
      runtimeCell(r, liveness),
      r.workspacePath,
      age(r.createdAt, now)
    ])
  ))
  for (const line of undone.lines) yield* Console.log(line)
})
