/** `orch session ls|kill|restore|cleanup`. */
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type { Removed } from "../sessions/SessionOps.ts"
import { rescueNote, restoreRescueNote } from "./format.ts"

const loadSessions = () => import("./session-context.ts")
const sessionId = Argument.String("session").pipe(Argument.withDescription("Session id, e.g. app-3"))
const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

const ls = Command.make(
  "ls",
  { json },
  (flags) => Effect.flatMap(Effect.promise(() => import("./session-ls.ts")), ({ listSessions }) => listSessions(flags))
).pipe(
  Command.withDescription(
    "List sessions with the live state of their terminals (probes tmux once), with or without a config; a session whose agent is gone is shown errored; a spawn whose process died is shown interrupted, and undone when no supervisor runs"
  )
)

const kill = Command.make(
  "kill",
  { session: sessionId },
  Effect.fn("cli.session.kill")(function*({ session }) {
    const { withSessionsFor } = yield* Effect.promise(loadSessions)
    const killed = yield* withSessionsFor(session, (sessions) => sessions.kill(session))
    yield* Console.log(
      killed.undone !== undefined
        ? `${session} was a start cut short, so it was undone instead: ${killed.undone}`
        : killed.alreadyKilled === true
        ? `${session} was already killed${killed.record.endedAt ? ` (at ${killed.record.endedAt})` : ""}; nothing to do`
        : `killed ${session}${rescueNote(killed)}`
    )
  })
).pipe(Command.withDescription("Stop a session's agent and remove its worktree (unsaved work is saved first)"))

const restore = Command.make(
  "restore",
  { session: sessionId },
  Effect.fn("cli.session.restore")(function*({ session }) {
    const { withSessionsFor } = yield* Effect.promise(loadSessions)
    const record = yield* withSessionsFor(session, (sessions) => sessions.restore(session))
    yield* Console.log(`restored ${session}`)
    const rescued = restoreRescueNote(record)
    if (rescued !== undefined) yield* Console.log(rescued)
  })
).pipe(Command.withDescription("Start a dead session's agent again in its worktree, resuming its conversation"))

const cleanup = Command.make(
  "cleanup",
  { dryRun: Flag.Boolean("dry-run").pipe(Flag.withDefault(false), Flag.withDescription("Only say what would be cleaned")), json },
  Effect.fn("cli.session.cleanup")(function*({ dryRun, json }) {
    const { withSessions } = yield* Effect.promise(loadSessions)
    const items = yield* withSessions((sessions) => sessions.cleanup({ dryRun }))
    if (json) {
      return yield* Console.log(
        JSON.stringify(
          items.map((i) => ({ sessionId: i.record.sessionId, status: i.status, cause: i.cause, reason: i.reason, rescuedTo: i.rescuedTo ?? null }))
        )
      )
    }
    if (items.length === 0) return yield* Console.log("Nothing to clean up.")
    for (const item of items) {
      yield* Console.log(`${dryRun ? "would clean" : "cleaned"} ${item.record.sessionId} (${item.status}): ${item.reason}${rescueNote(item)}`)
    }
  })
).pipe(Command.withDescription("End sessions whose PR merged or closed (merged, done), whose issue is completed (done), or whose agent stopped (exited)"))

const removedLine = (removed: Removed, verb: string) =>
  `${verb} ${removed.sessionId} (${removed.status})${removed.worktreeRemoved ? " and its worktree" : ""}${
    removed.rescueRef !== undefined ? `; the work saved when it ended stays in ${removed.rescueRef}` : ""
  }`

const rm = Command.make(
  "rm",
  { session: sessionId },
  Effect.fn("cli.session.rm")(function*({ session }) {
    const { withSessionsFor } = yield* Effect.promise(loadSessions)
    const removed = yield* withSessionsFor(session, (sessions) => sessions.remove(session))
    yield* Console.log(removedLine(removed, "removed"))
  })
).pipe(Command.withDescription("Remove an ended session's record and files (never a live one, never unsaved work; git refs stay)"))

const prune = Command.make(
  "prune",
  { dryRun: Flag.Boolean("dry-run").pipe(Flag.withDefault(false), Flag.withDescription("Only say what would be removed")), json },
  Effect.fn("cli.session.prune")(function*({ dryRun, json }) {
    const { withSessionsAnywhere } = yield* Effect.promise(loadSessions)
    const report = yield* withSessionsAnywhere((sessions) => sessions.prune({ dryRun }))
    if (json) return yield* Console.log(JSON.stringify(report))
    if (report.removed.length === 0 && report.kept.length === 0) return yield* Console.log("Nothing to prune: no session has ended.")
    for (const removed of report.removed) yield* Console.log(removedLine(removed, dryRun ? "would remove" : "removed"))
    for (const kept of report.kept) yield* Console.log(`kept ${kept.sessionId}: ${kept.reason}`)
  })
).pipe(
  Command.withDescription(
    "Remove the records of every ended session (killed, done, merged, errored, or whose agent is gone) that holds no unsaved work (uncommitted or unpushed)"
  )
)

export const session = Command.make("session").pipe(
  Command.withDescription("Manage sessions: ls, kill, restore, cleanup, rm, prune"),
  Command.withSubcommands([ls, kill, restore, cleanup, rm, prune])
)
