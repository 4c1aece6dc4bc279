/**
 * What must hold after any crash and the recovery that follows (issue 20, DESIGN.md principle 11), read from the
 * files with the real Schemas, tmux and git. Each violation is a sentence naming what is wrong and where.
 */
import * as Schema from "effect/Schema"
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { announcementOf } from "../../src/domain/conflict-sides.ts"
import { OrchEvent } from "../../src/domain/event.ts"
import { QueueFile } from "../../src/domain/queue.ts"
import { isEnded, SessionRecord, worksAnIssue } from "../../src/domain/session.ts"
import { taskTitle } from "../../src/domain/task.ts"
import { ConflictsFile, conflictsPath } from "../../src/store/conflicts-file.ts"
import { checkTrain } from "./train-invariants.ts"
import { isAlive, notesText, type World } from "./world.ts"

/** What the scenario's commands established: the issues and tasks whose queueing or spawn was confirmed, and what it removed itself. */
export interface Promised {
  /** Issues a command confirmed (exit 0) as queued or started: `queue add`, `batch-spawn`, `spawn`. */
  readonly confirmed: ReadonlySet<string>
  /** Tasks (their text) `queue add --task` confirmed as queued. */
  readonly tasks?: ReadonlySet<string>
  /** Issues whose entries the scenario took off the queue itself: `queue rm`, or `orch spawn` of a queued issue. */
  readonly removedByScenario: ReadonlySet<string>
  /** The issues of each `batch-spawn` the crash cut short (it did not exit 0). */
  readonly cutBatches?: ReadonlyArray<ReadonlyArray<string>>
}

const decodeEvent = Schema.decodeUnknownResult(Schema.fromJsonString(OrchEvent))
const decodeQueue = Schema.decodeUnknownResult(Schema.fromJsonString(QueueFile))
const decodeRecord = Schema.decodeUnknownResult(Schema.fromJsonString(SessionRecord))
const decodeConflicts = Schema.decodeUnknownResult(Schema.fromJsonString(ConflictsFile))
type Event = typeof OrchEvent.Type
type Session = typeof SessionRecord.Type
type Queue = typeof QueueFile.Type

const firstLine = (message: string) => message.split("\n")[0]
/** A drop whose reason is the entry's own: its issue does not exist, or is closed. */
const OWN_REASON = /not found|does not exist|no such issue|is closed|was closed/i
/** A drop the scenario asked for: `orch queue rm`, or `orch spawn` starting the issue itself. */
const ASKED_REASON = /orch queue rm|orch spawn started it/

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}
/**
 * git's answer in the project's repository, else in its origin (where a host's sessions push their rescue refs),
 * or "" when neither has one (a commit that does not exist is reachable from nothing).
 */
const gitOr = (world: World, ...args: Array<string>): string => {
  for (const repo of [world.repo, world.origin]) {
    try {
      const answer = world.git(repo, ...args)
      if (answer !== "") return answer
    } catch {
      // not there
    }
  }
  return ""
}
const real = (path: string) => {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** The files, parsed with the real Schemas; what does not parse is a violation. */
const readState = (world: World, violations: Array<string>) => {
  const events: Array<Event> = []
  world.lines(join(world.dataDir, "events.jsonl")).forEach((line, i) => {
    const decoded = decodeEvent(line)
    if (decoded._tag === "Success") events.push(decoded.success)
    else violations.push(`events.jsonl line ${i + 1} does not parse as an event: ${firstLine(decoded.failure.message)}: ${line.slice(0, 120)}`)
  })
  let queue: Queue = { next: 1, entries: [] }
  const queueText = readText(join(world.dataDir, "queue.json"))
  if (queueText !== undefined) {
    const decoded = decodeQueue(queueText)
    if (decoded._tag === "Success") queue = decoded.success
    else violations.push(`queue.json does not parse as a queue: ${firstLine(decoded.failure.message)}`)
  }
  const records: Array<Session> = []
  const projectDir = join(world.dataDir, "sessions", "app")
  for (const sessionId of existsSync(projectDir) ? readdirSync(projectDir) : []) {
    const text = readText(join(projectDir, sessionId, "session.json"))
    if (text === undefined) continue
    const decoded = decodeRecord(text)
    if (decoded._tag === "Success") records.push(decoded.success)
    else violations.push(`sessions/app/${sessionId}/session.json does not parse as a session record: ${firstLine(decoded.failure.message)}`)
  }
  return { events, queue, records }
}

const issueChecks = (promised: Promised, queue: Queue, records: ReadonlyArray<Session>, violations: Array<string>) => {
  const issues = new Set([...promised.confirmed, ...queue.entries.flatMap((e) => (e.issue !== undefined ? [e.issue] : [])), ...records.map((r) => r.issueId)])
  for (const issue of [...issues].sort()) {
    const queued = queue.entries.filter((e) => e.projectId === "app" && e.issue === issue)
    const sessions = records.filter((r) => worksAnIssue(r) && r.issueId === issue)
    const live = sessions.filter((r) => !isEnded(r.status))
    const names = (list: ReadonlyArray<{ readonly sessionId: string; readonly status: string }>) => list.map((r) => `${r.sessionId} (${r.status})`).join(", ")
    if (promised.confirmed.has(issue) && !promised.removedByScenario.has(issue) && queued.length === 0 && sessions.length === 0) {
      violations.push(`issue ${issue} was confirmed (its command exited 0) but is neither queued nor has a session`)
    }
    if (promised.confirmed.has(issue) && sessions.length > 1) violations.push(`issue ${issue} has ${sessions.length} sessions: ${names(sessions)}`)
    if (live.length > 1) violations.push(`issue ${issue} has ${live.length} sessions that are not ended: ${names(live)}`)
    if (queued.length > 1) violations.push(`issue ${issue} is queued ${queued.length} times: ${queued.map((e) => e.id).join(", ")}`)
    if (queued.length > 0 && live.length > 0) violations.push(`issue ${issue} is queued (${queued[0]!.id}) while ${names(live)} works it`)
  }
}

/**
 * A batch-spawn the crash cut short promised nothing before it accepted its batch; once it left a trace of any of its
 * issues (an event, an entry, a record), it had, and each of them is queued, has a session, or left the queue saying
 * why (`queue.dropped`): none is dropped without a word.
 */
const cutBatchChecks = (promised: Promised, events: ReadonlyArray<Event>, queue: Queue, records: ReadonlyArray<Session>, violations: Array<string>) => {
  for (const batch of promised.cutBatches ?? []) {
    const queued = (issue: string) => queue.entries.some((e) => e.projectId === "app" && e.issue === issue)
    const worked = (issue: string) => records.some((r) => worksAnIssue(r) && r.issueId === issue)
    const traced = (issue: string) => queued(issue) || worked(issue) || events.some((e) => e.projectId === "app" && e.issueId === issue)
    if (!batch.some(traced)) continue
    for (const issue of batch) {
      if (queued(issue) || worked(issue) || events.some((e) => e.type === "queue.dropped" && e.issueId === issue)) continue
      violations.push(
        `issue ${issue} of the batch-spawn the crash cut short (it had accepted ${batch.join(", ")}) is neither queued nor has a session, and nothing said why`
      )
    }
  }
}

/** A task confirmed as queued is queued once, or has one session (its record's task title is the text's), never both. */
const taskChecks = (promised: Promised, queue: Queue, records: ReadonlyArray<Session>, violations: Array<string>) => {
  for (const text of promised.tasks ?? []) {
    const what = `task ${JSON.stringify(taskTitle(text))}`
    const queued = queue.entries.filter((e) => e.projectId === "app" && e.task === text)
    const sessions = records.filter((r) => r.task?.title === taskTitle(text))
    const live = sessions.filter((r) => !isEnded(r.status))
    if (queued.length === 0 && sessions.length === 0) violations.push(`${what} was confirmed (its command exited 0) but is neither queued nor has a session`)
    if (sessions.length > 1) violations.push(`${what} has ${sessions.length} sessions: ${sessions.map((r) => r.sessionId).join(", ")}`)
    if (queued.length > 1) violations.push(`${what} is queued ${queued.length} times: ${queued.map((e) => e.id).join(", ")}`)
    if (queued.length > 0 && live.length > 0) violations.push(`${what} is queued (${queued[0]!.id}) while ${live[0]!.sessionId} works it`)
  }
}

const recordChecks = (world: World, records: ReadonlyArray<Session>, violations: Array<string>) => {
  const terminals = new Set(world.tmuxSessions())
  const worktrees = worktreeList(world)
  for (const record of records) {
    if (isEnded(record.status) || (record.status as string) === "interrupted") continue
    const where = `${record.sessionId} (${record.status}, issue ${record.issueId})`
    if (record.status === "spawning" && record.spawn !== undefined && !isAlive(record.spawn.pid)) {
      violations.push(`${where} is still shown as spawning after recovery, though its spawn's process ${record.spawn.pid} is gone`)
    }
    // A session on another host has its terminal and worktree there (and while the host is down, orch cannot know).
    if (record.host !== undefined && record.host !== "local") continue
    const terminal = record.runtime?.id
    if (terminal === undefined || !terminals.has(terminal)) {
      violations.push(`${where} has no terminal: ${terminal === undefined ? "its record names none" : `tmux has no session ${terminal}`}`)
    }
    if (!existsSync(record.workspacePath) || !worktrees.some((w) => w.path === real(record.workspacePath))) {
      violations.push(`${where} has no worktree at ${record.workspacePath}`)
    }
  }
  const named = new Set(records.map((r) => real(r.workspacePath)))
  for (const worktree of worktrees.slice(1)) {
    if (!named.has(worktree.path)) {
      violations.push(`worktree ${worktree.path}${worktree.prunable ? " (its directory is gone)" : ""} is named by no session record`)
    }
  }
  const branches = new Set(records.map((r) => r.branch))
  // A branch that holds commits main does not have is work an undone spawn kept on purpose (src/sessions/undo-spawn.ts).
  const holdsWork = (branch: string) => world.git(world.repo, "rev-list", "--count", `main..${branch}`) !== "0"
  for (const branch of world.git(world.repo, "branch", "--list", "feat/*", "--format=%(refname:short)").split("\n").filter(Boolean)) {
    if (!branches.has(branch) && !holdsWork(branch)) violations.push(`branch ${branch} is named by no session record`)
  }
}

/** `git worktree list`, the main checkout first. */
const worktreeList = (world: World) =>
  world.git(world.repo, "worktree", "list", "--porcelain").split("\n\n").filter(Boolean).map((block) => ({
    path: real(/^worktree (.*)$/m.exec(block)?.[1] ?? ""),
    prunable: /^prunable/m.test(block)
  }))

const workChecks = (world: World, events: ReadonlyArray<Event>, records: ReadonlyArray<Session>, violations: Array<string>) => {
  for (const event of events.filter((e) => e.type === "session.rescued")) {
    const commit = (event.data as { commit?: string } | undefined)?.commit
    if (commit === undefined) continue
    const holders = gitOr(world, "for-each-ref", "--contains", commit, "--format=%(refname)")
    if (holders === "") violations.push(`the rescued commit ${commit.slice(0, 12)} of ${event.sessionId} is reachable from no ref (here or in origin)`)
  }
  for (const sessionId of new Set(world.lines(world.leakedLog))) violations.push(`the agent of ${sessionId} was given ORCH_CRASH_AT or ORCH_CRASH_TRACE`)
  const seen = new Set<string>()
  for (const line of world.lines(world.startedLog)) {
    if (seen.has(line)) continue
    seen.add(line)
    const [sessionId = "", issueId = ""] = line.split(" ")
    const text = notesText(sessionId, issueId)
    const record = records.find((r) => r.sessionId === sessionId && r.issueId === issueId)
    if (record !== undefined && readText(join(record.workspacePath, "notes", `${sessionId}.txt`))?.trim() === text) continue
    if (gitOr(world, "log", "--all", "-1", "--format=%H", `-S${text}`) !== "") continue
    violations.push(
      `the uncommitted file notes/${sessionId}.txt that the agent of ${sessionId} (issue ${issueId}) wrote is lost: in no worktree, rescue ref or branch (here or in origin)`
    )
  }
}

const queueEventChecks = (events: ReadonlyArray<Event>, queue: Queue, records: ReadonlyArray<Session>, violations: Array<string>) => {
  const entryOf = (event: Event) => (event.data as { entryId?: string } | undefined)?.entryId
  for (const added of events.filter((e) => e.type === "queue.added")) {
    const id = entryOf(added)
    if (id === undefined) continue
    const what = `${id} (${added.issueId !== undefined ? `issue ${added.issueId}` : "a task"})`
    const ends = events.filter((e) => (e.type === "queue.admitted" || e.type === "queue.dropped") && entryOf(e) === id)
    const queued = queue.entries.some((e) => e.id === id)
    if (ends.length === 0 && !queued) violations.push(`${what} left the queue with neither a queue.admitted nor a queue.dropped`)
    if (ends.length > 1) violations.push(`${what} ended ${ends.length} times: ${ends.map((e) => e.type).join(", ")}`)
    if (ends.length > 0 && queued) violations.push(`${what} is still queued after its ${ends[0]!.type}`)
    for (const end of ends) {
      if (end.type === "queue.dropped") {
        const reason = end.message ?? ""
        if (reason === "") violations.push(`${what} was dropped without a reason`)
        else if (!ASKED_REASON.test(reason) && !OWN_REASON.test(reason)) violations.push(`${what} was dropped for a reason not its own: ${firstLine(reason)}`)
      } else if (!records.some((r) => r.sessionId === end.sessionId && (added.issueId === undefined ? r.task !== undefined : r.issueId === added.issueId))) {
        violations.push(
          `${what} was admitted as ${end.sessionId}, but no record of ${end.sessionId} works ${
            added.issueId !== undefined ? `issue ${added.issueId}` : "a task"
          }`
        )
      }
    }
  }
}

/**
 * Predicted conflicts: a change is told once (no two events of a type with one key), and what conflicts.json shows
 * was told, unless the file still holds it as `pending` (a round a crash cut short, told at the next).
 */
const conflictChecks = (world: World, events: ReadonlyArray<Event>, violations: Array<string>) => {
  const keyOf = (event: Event) => (event.data as { key?: string } | undefined)?.key
  const told = new Map<string, number>()
  for (const event of events) {
    const key = keyOf(event)
    if (key === undefined) continue
    const what = `${event.type} ${key}`
    told.set(what, (told.get(what) ?? 0) + 1)
  }
  for (const [what, times] of told) if (times > 1) violations.push(`${what} was told ${times} times`)
  const text = readText(conflictsPath(world.dataDir))
  if (text === undefined) return
  const decoded = decodeConflicts(text)
  if (decoded._tag === "Failure") return void violations.push(`conflicts.json does not parse: ${firstLine(decoded.failure.message)}`)
  const pending = new Set((decoded.success.pending?.predicted ?? []).map(announcementOf))
  for (const prediction of decoded.success.predictions) {
    const key = announcementOf(prediction)
    if (!pending.has(key) && !told.has(`session.conflict_predicted ${key}`)) {
      violations.push(`conflicts.json shows ${key}, but no session.conflict_predicted told it and none is pending`)
    }
  }
}

/**
 * What `orch status --json` shows right after the crash, before anything recovers: a spawn whose process is gone is
 * shown as interrupted, never as `spawning` (as if it went on).
 */
export const checkShownAfterCrash = (status: { readonly code: number | null; readonly stdout: string; readonly stderr: string }): Array<string> => {
  if (status.code !== 0) return [`right after the crash, \`orch status --json\` exited ${status.code}: ${firstLine(status.stderr)}`]
  let shown: Array<{ sessionId: string; issueId: string; status: string; spawn?: { pid: number } }>
  try {
    shown = JSON.parse(status.stdout)
  } catch {
    return [`right after the crash, \`orch status --json\` printed no JSON: ${firstLine(status.stdout)}`]
  }
  return shown.filter((s) => s.status === "spawning" && s.spawn !== undefined && !isAlive(s.spawn.pid)).map((s) =>
    `right after the crash, \`orch status\` shows ${s.sessionId} (issue ${s.issueId}) as spawning, though its spawn's process ${s.spawn!.pid} is gone`
  )
}

/** Every invariant, as sentences; none when all hold. */
export const checkInvariants = (world: World, promised: Promised): Array<string> => {
  const violations: Array<string> = []
  const { events, queue, records } = readState(world, violations)
  issueChecks(promised, queue, records, violations)
  taskChecks(promised, queue, records, violations)
  cutBatchChecks(promised, events, queue, records, violations)
  recordChecks(world, records, violations)
  workChecks(world, events, records, violations)
  queueEventChecks(events, queue, records, violations)
  conflictChecks(world, events, violations)
  violations.push(...checkTrain(world, events))
  return violations
}
