/**
 * The session procedures (spawn, batch-spawn, send, kill, restore, cleanup, reconcile), each run with the
 * plugins of the session's project, which ProjectPlugins builds once per project and config. The CLI runs them in-process; the supervisor runs the same ones. Each
 * procedure reads the config in force (ConfigSource) once when it starts, so a supervisor's reload applies
 * from the next procedure on.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChildProcessSpawner } from "effect/process"
import * as Semaphore from "effect/Semaphore"
import { existsSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { ConfigSource } from "../config/ConfigSource.ts"
import { LOCAL } from "../config/host-spec.ts"
import { chooseProject } from "../config/project-choice.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { planBatch } from "../domain/admission.ts"
import { heldHosts, type Hold } from "../domain/holds.ts"
import { firstInvalidIssueId, ISSUE_ID_EXPECTED, normalIssueId } from "../domain/issue-id.ts"
import { clockTime } from "../domain/rate-limit.ts"
import { parsePs, treeRss } from "../domain/session-size.ts"
import { asAgentGone, hostOf, isEnded, isLive, type RuntimeHandle, type SessionRecord, worksAnIssue } from "../domain/session.ts"
import { hostViewsOf } from "../hosts/host-watch.ts"
import { Agent } from "../plugins/agent/Agent.ts"
import { ProjectPlugins } from "../plugins/ProjectPlugins.ts"
import type { PluginBuildError } from "../plugins/registry.ts"
import { PS_COMMAND } from "../plugins/runtime/host-probe.ts"
import { removeStaleEnvFiles } from "../plugins/runtime/launch-env.ts"
import { makeMultiplexer, socketOf } from "../plugins/runtime/multiplexer.ts"
import { type Liveness, Runtime } from "../plugins/runtime/Runtime.ts"
import { InvalidIssueId, type IssueState, Tracker } from "../plugins/tracker/Tracker.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { EventLog } from "../store/EventLog.ts"
import { attempt } from "../store/files.ts"
import { readHolds } from "../store/holds-file.ts"
import { isProcessAlive, processStartTime } from "../store/process-liveness.ts"
import { QueueStore } from "../store/QueueStore.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { interruptedSpawns, owesReconcile, spawnerLives } from "../store/spawner.ts"
import { admissionFacts, readMachine } from "./admission-facts.ts"
import { agentEnvironment } from "./agent-env.ts"
import { makeAgentFiles, pathsOn } from "./agent-files.ts"
import { agentContext, checkAgentProgram, waitUntilReady, watchStart } from "./agent-start.ts"
import { cleanupVerdict, isCleanable, settledVerdict } from "./cleanup-decision.ts"
import {
  HostUnreachable,
  IssueHasSession,
  KillIncomplete,
  ProjectNotFound,
  ProjectNotGiven,
  RemoveRefused,
  RestoreFailed,
  SessionNotRunning,
  SessionRunning
} from "./errors.ts"
import { failureOwner } from "./failure-owner.ts"
import { admissionReadings, chooseHost, chooseHosts, placementBlocker } from "./host-choice.ts"
import { startOrchestrator } from "./orchestrator.ts"
import { recoverQueue } from "./queue-recovery.ts"
import { liftHolds, makeQueueing, recordHold } from "./queueing.ts"
import { nowIso } from "./record-update.ts"
import { projectToEnd } from "./recorded-project.ts"
import { factsWithoutPlugins, REMOVABLE_STATUSES, type RemovalFacts, type RemovalVerdict, removalVerdict } from "./removal.ts"
import { readMeasured } from "./reservations.ts"
import type { BatchOutcome, CleanupItem, PruneReport, Removed, SpawnTarget } from "./SessionOps.ts"
import { spawnedEvent } from "./spawn-record.ts"
import type { SpawnOptions } from "./spawn-run.ts"
import { spawnSession } from "./spawn.ts"
import { removeWorkspaceSafely, stopRuntime } from "./teardown.ts"
import { undoneLine, undoSpawn } from "./undo-spawn.ts"

/** What reconcile did to a session, for people: undid a start cut short, finished a kill, or recovered a queue entry's start. */
export interface Reconciled {
  readonly sessionId: string
  readonly kind: "undone" | "killed" | "queue"
  readonly line: string
}

/** Spawns are undone by `reconcile` once their process is gone; reservations with no record after this long too. */
const ORPHAN_RESERVATION_MS = 60_000
/** An agent's environment file still there after this long was never read: its start was killed. */
const STALE_ENV_FILE_MS = 60_000
const BATCH_CONCURRENCY = 4

export const makeSessionManager = Effect.fnUntraced(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const configs = yield* ConfigSource
  const plugins = yield* ProjectPlugins
  const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner | SessionStore | EventLog>()
  const projectsOf = (config: OrchestratorConfig) => Object.values(config.projects)
  const queue = QueueStore.make(store.paths.root, events)

  const configFile = (config: OrchestratorConfig) => (config.configPath !== undefined ? { configPath: config.configPath } : {})
  /** The project `ref` names (its key or id); `undefined` means the config's only one (`command` says what to name it for). */
  const findProject = (config: OrchestratorConfig, ref: string | undefined, command = "orch start") => {
    const choice = chooseProject(config.projects, ref)
    switch (choice._tag) {
      case "Chosen":
        return Effect.succeed(choice.project)
      case "Unknown":
        return Effect.fail(new ProjectNotFound({ project: choice.ref, known: Object.keys(config.projects), ...configFile(config) }))
      case "NotGiven":
        return Effect.fail(new ProjectNotGiven({ command, known: Object.keys(config.projects), ...configFile(config) }))
    }
  }
  const projectOf = (config: OrchestratorConfig, record: SessionRecord) => {
    const project = projectsOf(config).find((p) => p.id === record.projectId)
    return project === undefined
      ? Effect.fail(new ProjectNotFound({ project: record.projectId, known: projectsOf(config).map((p) => p.id), ...configFile(config) }))
      : Effect.succeed(project)
  }
  /** The project to end a session with: the config's, else the one its record keeps (its project left the config). */
  const projectToEndOf = (config: OrchestratorConfig, record: SessionRecord) => {
    const project = projectToEnd(projectsOf(config), record)
    return project === undefined ? projectOf(config, record) : Effect.succeed(project)
  }
  /** Runs `effect` with the plugins of `project` (as `config` makes them; built once, by ProjectPlugins). */
  const withPlugins = (config: OrchestratorConfig, project: ProjectConfig, host?: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(plugins.provide(config, project, host), Effect.provide(context))

  const GONE: Liveness = { _tag: "Gone" }
  /** The session's liveness; undefined when its runtime could not say (its host did not answer). */
  const probed = (record: SessionRecord) =>
    record.runtime === null
      ? Effect.succeed<Liveness | undefined>(GONE)
      : Runtime.use((runtime) => runtime.probe([record.runtime!])).pipe(Effect.map((m) => m.get(record.runtime!.id)))
  const liveness = (record: SessionRecord) => Effect.map(probed(record), (state) => state ?? GONE)
  /** The liveness of a session that `command` acts on: one whose host does not answer is refused, never taken for gone. */
  const livenessFor = (config: OrchestratorConfig, record: SessionRecord, command: string) =>
    Effect.flatMap(probed(record), (state) => state !== undefined ? Effect.succeed(state) : Effect.as(refuseUnreachable(config, record, command), GONE))

  /** A session on a host that cannot be reached is left as it is: its work there cannot be saved now. */
  const refuseUnreachable = Effect.fnUntraced(function*(config: OrchestratorConfig, record: SessionRecord, command: string) {
    const host = hostOf(record)
    if (host === LOCAL) return
    if (config.hosts[host] === undefined) {
      return yield* new HostUnreachable({ sessionId: record.sessionId, host, command, reason: "the config names no such host; add it back under hosts" })
    }
    const answer = yield* (yield* plugins.connections(config)).run(host, ":\n").pipe(Effect.result)
    if (answer._tag === "Failure") return yield* new HostUnreachable({ sessionId: record.sessionId, host, command, reason: answer.failure.message })
  })

  const update = (record: SessionRecord, changes: Partial<SessionRecord>) =>
    Effect.flatMap(nowIso, (updatedAt) => {
      const next = { ...record, ...changes, updatedAt }
      return Effect.as(store.write(next), next)
    })

  /** Writes the `session.spawned` a spawn killed after its session was whole still owed (unless the log has it), and ends its journal. */
  const announceOwed = Effect.fnUntraced(function*(record: SessionRecord, from: number) {
    const written = (yield* events.linesFrom(from)).some((line) =>
      line.includes(`"type":"session.spawned"`) && line.includes(`"sessionId":"${record.sessionId}"`)
    )
    if (!written) yield* events.append(spawnedEvent(record))
    const { spawn: _journal, ...whole } = record
    yield* store.write(whole)
  })

  /** Undoes one interrupted spawn with its project's plugins (undo-spawn.ts); undefined when its project left the config. */
  const undoInterrupted = (config: OrchestratorConfig, record: SessionRecord) => {
    const project = projectsOf(config).find((p) => p.id === record.projectId)
    return project === undefined ? Effect.succeed(undefined) : undoSpawn(project, record).pipe(withPlugins(config, project, hostOf(record)))
  }

  /**
   * Undoes spawns whose process died half-way (lists show them `interrupted`; undo-spawn.ts says how), writes the
   * `session.spawned` of one killed once whole, finishes or undoes queue admissions a crash cut short
   * (queue-recovery.ts), and drops reservations that never got a record. Says what it undid.
   */
  const reconcile = Effect.fn("Sessions.reconcile")(function*() {
    const config = yield* configs.current
    const done: Array<Reconciled> = []
    const { records } = yield* store.list
    for (const record of records) {
      if (record.spawn?.announce !== undefined && record.status !== "spawning" && !spawnerLives(record)) {
        yield* announceOwed(record, record.spawn.announce)
      }
    }
    // Kills cut short (their process gone): finished, or only their event written, as they were asked.
    for (const record of records) {
      const journal = record.killing
      if (journal === undefined || isProcessAlive(journal.pid, journal.startTime)) continue
      if (record.status === "killed") yield* announceKilled(record)
      else {
        const project = projectToEnd(projectsOf(config), record)
        if (project === undefined) continue
        const { removed } = yield* finishKill(config, project, record)
        done.push({
          sessionId: record.sessionId,
          kind: "killed",
          line: `finished the kill of ${record.sessionId} that was cut short when its process (${journal.pid}) died${
            removed.rescuedTo !== undefined ? `; what was unsaved in its worktree is in ${removed.rescuedTo}` : ""
          }`
        })
      }
    }
    for (const record of interruptedSpawns(records)) {
      const spawn = yield* undoInterrupted(config, record)
      if (spawn !== undefined) done.push({ sessionId: spawn.sessionId, kind: "undone", line: undoneLine(spawn) })
    }
    const recovered = yield* recoverQueue({
      queue,
      store,
      orphaned: queueing.orphaned,
      undoSpawn: (record) =>
        Effect.map(
          undoInterrupted(config, record),
          (spawn) => void (spawn !== undefined && done.push({ sessionId: spawn.sessionId, kind: "undone", line: undoneLine(spawn) }))
        )
    })
    for (const entry of recovered) {
      done.push({
        sessionId: entry.sessionId,
        kind: "queue",
        line: `${entry.entryId}'s start as ${entry.sessionId} was cut short: ${
          entry.outcome === "admitted" ? `${entry.sessionId} was whole, so it is admitted` : "it waits in the queue again, where it was"
        }`
      })
    }
    const now = Date.now()
    // Agents' environment files (they may hold secrets) of starts killed before their shell read them.
    yield* attempt(tmpdir(), () => removeStaleEnvFiles(STALE_ENV_FILE_MS, now))
    for (const { projectId, sessionId } of yield* store.reservations) {
      const age = yield* Effect.sync(() => now - (statSync(store.paths.session(projectId, sessionId), { throwIfNoEntry: false })?.mtimeMs ?? now))
      if (age > ORPHAN_RESERVATION_MS) yield* store.release(projectId, sessionId)
    }
    return done
  })

  /**
   * Spawns a session where placement puts it. A failure of that host (failure-owner.ts) holds it back for the
   * project (src/domain/holds.ts), and a person's spawn is placed again without it, saying so; admission's spawns
   * (`claim`) leave that to admission.
   */
  const spawn = Effect.fn("Sessions.spawnIn")(function*(
    projectRef: string,
    target: SpawnTarget,
    options: Pick<SpawnOptions, "claim" | "refuseClosed"> & {
      /**
       * "owed": reconcile only when the records owe this spawn one (`owesReconcile`), as a running supervisor asks:
       * its start and its probe cycle do the rest. Absent: reconcile first, as every command without a supervisor does.
       */
      readonly reconcile?: "owed"
    } = {}
  ) {
    const config = yield* configs.current
    const project = yield* findProject(config, projectRef)
    let listed = options.reconcile === "owed" ? (yield* store.list).records : undefined
    if (listed === undefined || owesReconcile(listed)) {
      yield* reconcile()
      listed = (yield* store.list).records
    }
    // Each placement after the first lists again: the failed try changed the records.
    let records: ReadonlyArray<SessionRecord> | undefined = listed
    if (target._tag === "Issue") {
      const issueId = normalIssueId(target.issue)
      const existing = listed.find((r) => r.projectId === project.id && r.issueId === issueId && !isEnded(r.status) && worksAnIssue(r))
      if (existing !== undefined) {
        return yield* new IssueHasSession({ issueId, sessionId: existing.sessionId, ...(existing.status === "spawning" ? { spawning: true } : {}) })
      }
    }
    const connections = yield* plugins.connections(config)
    const warnings: Array<string> = []
    for (let tries = 0;; tries++) {
      const now = yield* Clock.currentTimeMillis
      const held = target.host !== undefined ? new Map<string, string>() : heldHosts(yield* readHolds(store.paths.root), project.id, now, clockTime(now))
      const current = records ?? (yield* store.list).records
      records = undefined
      const { reserved } = yield* readMeasured(store.paths.root, current)
      const { host, dataDir, origin, unread } = yield* chooseHost(connections, config, project, current, reserved, target.host, held)
      const placed = yield* spawnSession(project, target, {
        configPath: config.configPath,
        host,
        hostDataDir: dataDir,
        hostOrigin: origin,
        claim: options.claim,
        refuseClosed: options.refuseClosed
      }).pipe(withPlugins(config, project, host), Effect.result)
      if (placed._tag === "Success") {
        yield* liftHolds(store.paths.root, events, project.id, host, "a spawn there succeeded")
        const spawned = { ...placed.success, warnings: [...(unread ?? []), ...warnings, ...placed.success.warnings] }
        if (target._tag === "Issue") yield* unqueue(project.id, spawned.record.issueId, spawned.record.sessionId)
        return spawned
      }
      const owner = failureOwner(placed.failure)
      // With this machine alone there is nowhere else: the person hears why, and admission learns for itself.
      if (owner._tag !== "Host" || options.claim !== undefined || Object.keys(config.hosts).length === 0) return yield* Effect.fail(placed.failure)
      yield* recordHold(store.paths.root, events, { project: project.id, host: owner.host }, owner.reason)
      // Another host may take it: placed again without this one (the hold leaves it out), once per host at most.
      if (target.host !== undefined || tries >= Object.keys(config.hosts).length) return yield* Effect.fail(placed.failure)
      warnings.push(`host ${owner.host} could not take the session (${owner.reason}); orch leaves it out for ${project.id} for now and placed it again`)
    }
  })

  /** An issue a person started with `orch spawn` leaves the queue: it is not waiting any more (an entry being started is left to its admission). */
  const unqueue = (projectId: string, issueId: string, sessionId: string) =>
    queue.list.pipe(
      Effect.flatMap((entries) =>
        Effect.forEach(
          entries.filter((entry) => entry.projectId === projectId && entry.issue === issueId && entry.admitting === undefined),
          (entry) => queue.drop(entry.id, `${entry.id} (issue ${issueId}) left the queue: orch spawn started it as ${sessionId}`, { sessionId }),
          { discard: true }
        )
      ),
      // The session runs; a queue that could not be changed is said, and admission drops the entry later (it has a session).
      Effect.catch((error) => Effect.logWarning(`issue ${issueId} stays queued although ${sessionId} works it: ${error.message}`))
    )

  /**
   * Why no host could take a session of each project now: with hosts, on the host watch's last figures, hosts held back
   * for the project left out; without, this machine when it is held back for the project.
   */
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

  /**
   * What each of this machine's reserved sessions already takes, read now (its agent's process tree: one probe per
   * project, one `ps`): admission then holds only the rest of its expected size. Only where this machine's memory is
   * admission's budget (no hosts configured); nothing when it cannot be read (the whole size is held then).
   */
  const usedHere = Effect.fnUntraced(function*(config: OrchestratorConfig, reserved: ReadonlyArray<SessionRecord>) {
    const local = reserved.filter((r) => hostOf(r) === LOCAL && r.runtime !== null)
    if (local.length === 0 || Object.keys(config.hosts).length > 0) return new Map<string, number>()
    const pids = new Map<string, number>()
    for (const project of projectsOf(config)) {
      const mine = local.filter((r) => r.projectId === project.id)
      if (mine.length === 0) continue
      const probed = yield* Runtime.use((runtime) => runtime.probe(mine.map((r) => r.runtime!))).pipe(
        withPlugins(config, project),
        Effect.orElseSucceed(() => new Map<string, Liveness>())
      )
      for (const record of mine) {
        const state = probed.get(record.runtime!.id)
        if (state?._tag === "Alive" && state.pid !== undefined) pids.set(record.sessionId, state.pid)
      }
    }
    if (pids.size === 0) return new Map<string, number>()
    const ps = yield* Effect.flatMap(plugins.connections(config), (connections) => connections.run(LOCAL, PS_COMMAND)).pipe(
      Effect.map((answer) => (answer.exitCode === 0 ? answer.stdout : "")),
      Effect.orElseSucceed(() => "")
    )
    const rows = parsePs(ps)
    return new Map([...pids].flatMap(([sessionId, pid]) => {
      const bytes = treeRss(rows, pid)
      return bytes === undefined ? [] : [[sessionId, bytes] as const]
    }))
  })

  const queueing = makeQueueing({
    queue,
    events,
    store,
    config: configs.current,
    findProject,
    spawn: (projectId, target, options) => spawn(projectId, target, options),
    lookup: (config, project, issueId) => Tracker.use((tracker) => tracker.getIssue(issueId)).pipe(withPlugins(config, project)),
    unplaceable,
    used: usedHere
  })

  const batchSpawn = Effect.fn("Sessions.batchSpawn")(function*(
    projectRef: string,
    issues: ReadonlyArray<string>,
    onOutcome: (outcome: BatchOutcome) => Effect.Effect<void> = () => Effect.void
  ) {
    const config = yield* configs.current
    const project = yield* findProject(config, projectRef)
    // Refused before anything starts or is queued, as `queue add` refuses it.
    const invalid = firstInvalidIssueId(issues)
    if (invalid !== undefined) return yield* new InvalidIssueId({ issueId: invalid, expected: ISSUE_ID_EXPECTED })
    yield* reconcile()
    const { records } = yield* store.list
    // Tasks are not issues: a task whose slug reads like an issue id never makes that issue skipped.
    const live = new Map(records.filter((r) => r.projectId === project.id && !isEnded(r.status) && worksAnIssue(r)).map((r) => [r.issueId, r.sessionId]))
    const unique = [...new Set(issues.map(normalIssueId))]
    // What the admission rule does not let start now is queued (behind what is queued already).
    const fresh = unique.filter((issueId) => !live.has(issueId)).map((issueId) => ({ id: issueId, projectId: project.id, agent: project.agent }))
    const queued = (yield* queue.list).flatMap((entry) => {
      const owner = projectsOf(config).find((p) => p.id === entry.projectId)
      return owner === undefined ? [] : [{ id: entry.id, projectId: entry.projectId, agent: owner.agent }]
    })
    const now = yield* Clock.currentTimeMillis
    const holds = yield* readHolds(store.paths.root)
    const read = yield* readMeasured(store.paths.root, records)
    const measured = { ...read, used: yield* usedHere(config, read.reserved) }
    // A person's batch tries now: holds leave hosts out of its placement (below), they do not hold it back.
    const plan = planBatch(queued, fresh, admissionFacts(config, records, yield* readMachine, measured))
    const waits = new Map(plan.waiting.map((w) => [w.entry.id, w.reason]))
    const toQueue = unique.filter((issueId) => waits.has(issueId))
    const { added, already } = toQueue.length === 0 ? { added: [], already: [] } : yield* queue.add(project.id, toQueue.map((issue) => ({ issue })), 0)
    const entries = new Map([...added, ...already].map((entry) => [entry.issue, entry]))
    // Where each one that starts now goes: placed in turn on one headroom reading per host.
    const starting = unique.filter((issueId) => !live.has(issueId) && !entries.has(issueId))
    const held = heldHosts(holds, project.id, now, clockTime(now))
    const hosts = yield* chooseHosts(yield* plugins.connections(config), config, project, records, measured.reserved, starting.length, held)
    const queueIssue = (issueId: string, reason: string) =>
      Effect.gen(function*() {
        const result = yield* queue.add(project.id, [{ issue: issueId }], 0)
        const entry = [...result.added, ...result.already][0]!
        return { _tag: "Queued", issueId, entryId: entry.id, position: entry.position, reason } satisfies BatchOutcome
      })
    const hostOfIssue = new Map(starting.map((issueId, i) => [issueId, hosts[i]!]))
    return yield* Effect.forEach(unique, (issueId) => {
      const existing = live.get(issueId)
      const entry = entries.get(issueId)
      const outcome: Effect.Effect<BatchOutcome> = existing !== undefined
        ? Effect.succeed({ _tag: "Skipped", issueId, sessionId: existing })
        : entry !== undefined
        ? Effect.succeed({ _tag: "Queued", issueId, entryId: entry.id, position: entry.position, reason: waits.get(issueId)! })
        : hostOfIssue.get(issueId)!.pipe(
          Effect.matchEffect({
            // No host can take it now: it waits in the queue, as what the admission rule holds back does.
            onFailure: (nowhere) => queueIssue(issueId, `waiting for a host: ${nowhere.reason}`),
            onSuccess: ({ host, dataDir, origin }) =>
              spawnSession(project, { _tag: "Issue", issue: issueId }, { configPath: config.configPath, host, hostDataDir: dataDir, hostOrigin: origin }).pipe(
                withPlugins(config, project, host),
                Effect.tap(() => liftHolds(store.paths.root, events, project.id, host, "a spawn there succeeded")),
                Effect.map((spawned): BatchOutcome => ({ _tag: "Created", issueId, ...spawned })),
                // Where it was to run could not take it (not the issue's fault): with other hosts, that one is held back
                // and the issue waits for another; with this machine alone it failed, and the person hears why now.
                Effect.catch((error) => {
                  const owner = failureOwner(error)
                  if (owner._tag !== "Host" || Object.keys(config.hosts).length === 0) return Effect.fail(error)
                  const held = recordHold(store.paths.root, events, { project: project.id, host: owner.host }, owner.reason)
                  const where = owner.host === LOCAL ? "this machine" : `host ${owner.host}`
                  return Effect.andThen(held, queueIssue(issueId, `waiting for a host: ${where} could not start it: ${owner.reason}`))
                })
              )
          }),
          Effect.catch((error) => Effect.succeed<BatchOutcome>({ _tag: "Failed", issueId, reason: error.message }))
        )
      return Effect.tap(outcome, onOutcome)
    }, { concurrency: BATCH_CONCURRENCY })
  })

  const send = Effect.fn("Sessions.send")(function*(sessionId: string, message: string) {
    const config = yield* configs.current
    const record = yield* store.read(sessionId)
    const project = yield* projectOf(config, record)
    yield* Effect.gen(function*() {
      if (isEnded(record.status)) return yield* new SessionNotRunning({ sessionId, state: record.status })
      const state = yield* livenessFor(config, record, "send")
      if (state._tag !== "Alive") {
        return yield* new SessionNotRunning({ sessionId, state: state._tag === "Gone" ? "its terminal session is gone" : "its agent exited" })
      }
      yield* Runtime.use((runtime) => runtime.send(record.runtime!, message))
    }).pipe(withPlugins(config, project, hostOf(record)))
    yield* events.append({ type: "session.message_sent", sessionId, projectId: record.projectId, message: message.slice(0, 200) })
  })

  /**
   * Kills a session in steps a crash can come between: the kill is written down first (`killing`), then the agent is
   * stopped and the worktree saved and removed, then the record says killed (naming where `session.killed` belongs in
   * the log), then the event, then the journal goes. A kill cut short is finished by the next reconcile.
   */
  const finishKill = Effect.fnUntraced(function*(config: OrchestratorConfig, project: ProjectConfig, record: SessionRecord) {
    const { sessionId } = record
    const removed = yield* Effect.gen(function*() {
      yield* stopRuntime(record.runtime)
      // The agent is stopped: a worktree that cannot be saved is kept, and the record says the agent is gone.
      return yield* removeWorkspaceSafely(project, record, record.workspacePath, record.branch).pipe(
        Effect.catch((error) => {
          const { killing: _, ...stopped } = record
          return Effect.andThen(update(stopped, { activity: "exited" }), Effect.fail(new KillIncomplete({ sessionId, reason: error.message })))
        })
      )
    }).pipe(withPlugins(config, project, hostOf(record)))
    const killed = yield* update(record, {
      status: "killed",
      activity: "exited",
      endedAt: yield* nowIso,
      ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {}),
      ...(record.killing !== undefined ? { killing: { ...record.killing, announce: yield* events.size } } : {})
    })
    yield* announceKilled(killed)
    return { killed, removed }
  })

  /** Writes `session.killed` (unless the log has it since the record said killed) and ends the kill's journal. */
  const announceKilled = Effect.fnUntraced(function*(killed: SessionRecord) {
    const from = killed.killing?.announce ?? 0
    const written = killed.killing?.announce !== undefined &&
      (yield* events.linesFrom(from)).some((line) => line.includes(`"type":"session.killed"`) && line.includes(`"sessionId":"${killed.sessionId}"`))
    if (!written) {
      yield* events.append({
        type: "session.killed",
        sessionId: killed.sessionId,
        projectId: killed.projectId,
        ...(killed.rescueRef ? { data: { rescueRef: killed.rescueRef } } : {})
      })
    }
    const { killing: _, ...done } = killed
    yield* store.write(done, { durable: false })
    return done
  })

  const kill = Effect.fn("Sessions.kill")(function*(sessionId: string) {
    const config = yield* configs.current
    const before = yield* store.read(sessionId)
    // Killing is done once: a second kill changes nothing and records no second event.
    if (before.status === "killed" && before.killing === undefined) return { record: before, alreadyKilled: true }
    const project = yield* projectToEndOf(config, before)
    const undone = (yield* reconcile()).find((done) => done.sessionId === sessionId && done.kind === "undone")
    // A start cut short is undone rather than killed; a kill cut short was just finished: either way, said so.
    if (undone !== undefined) return { record: before, undone: undone.line }
    const record = yield* store.read(sessionId)
    if (record.status === "killed") return { record, ...(record.rescueRef !== undefined ? { rescuedTo: record.rescueRef } : {}) }
    yield* refuseUnreachable(config, record, "session kill")
    const startTime = processStartTime(process.pid)
    const journal = { pid: process.pid, ...(startTime !== undefined ? { startTime } : {}), at: yield* nowIso }
    yield* store.write({ ...record, killing: journal })
    // A kill that failed (said so; the person may try again) is no kill to finish later: its journal goes.
    const { killed, removed } = yield* finishKill(config, project, { ...record, killing: journal }).pipe(
      Effect.tapError(() =>
        Effect.flatMap(store.read(sessionId), ({ killing: _, ...rest }) => store.write(rest)).pipe(
          Effect.catch((error) => Effect.logWarning(`${sessionId}'s record keeps its kill journal (${error.message}); the next command finishes the kill`))
        )
      )
    )
    const { killing: _, ...shown } = killed
    return { record: shown, ...removed }
  })

  const restore = Effect.fn("Sessions.restore")(function*(sessionId: string) {
    const config = yield* configs.current
    const project = yield* projectOf(config, yield* store.read(sessionId))
    yield* reconcile()
    // As reconcile left it: a start cut short is gone (undone), a kill cut short is finished.
    const record = yield* store.read(sessionId)
    const { handle, signalOffset } = yield* Effect.gen(function*() {
      const runtime = yield* Runtime
      const agent = yield* Agent
      const workspace = yield* Workspace
      if ((yield* livenessFor(config, record, "session restore"))._tag === "Alive") return yield* new SessionRunning({ sessionId })
      // Before anything is made again: a restore that cannot start the agent leaves the session as it was.
      yield* checkAgentProgram(agent, project).pipe(Effect.mapError((reason) => new RestoreFailed({ sessionId, reason })))
      if (record.runtime !== null) yield* runtime.destroy(record.runtime)
      if (!(yield* workspace.exists(record.workspacePath))) {
        yield* workspace.create({ project, sessionId, branch: record.branch, path: record.workspacePath })
      }
      const there = yield* pathsOn(store.paths, workspace)
      const context = agentContext({ paths: there }, project, record, "")
      const launch = yield* agent.resume(context)
      yield* makeAgentFiles(workspace, store.paths, there, record, launch.files ?? [])
      // What the agent reported before is history (a `done` folded again would end the restored session): its
      // signals are read from where the file ends now, before the agent can add any. The supervisor reads the
      // local file (a host's lines are mirrored into it).
      const signalOffset = yield* Effect.sync(() => statSync(store.paths.activity(project.id, sessionId), { throwIfNoEntry: false })?.size ?? 0)
      const handle = yield* runtime.create({
        sessionId,
        workingDir: record.workspacePath,
        command: launch.command,
        ...agentEnvironment(project, context, launch.env, hostOf(record) === LOCAL ? process.env : {})
      })
      // Return once the agent takes input, so a message sent right after restore is not typed into a starting TUI.
      // One that asks a question or is slow is left to the supervisor's probes; one that exits fails the restore.
      yield* watchStart(runtime, handle).pipe(
        Effect.andThen(
          waitUntilReady(runtime, agent, handle).pipe(
            Effect.catch((reason) =>
              Effect.flatMap(liveness({ ...record, runtime: handle }), (state) => (state._tag === "Alive" ? Effect.void : Effect.fail(reason)))
            )
          )
        ),
        Effect.catch((reason) =>
          Effect.flatMap(
            runtime.destroy(handle).pipe(
              Effect.as(""),
              Effect.catch((error) => Effect.succeed(`; and its terminal session ${handle.id} could not be ended: ${error.message}`))
            ),
            (left) => Effect.fail(new RestoreFailed({ sessionId, reason: `${typeof reason === "string" ? reason : reason.message}${left}` }))
          )
        )
      )
      return { handle, signalOffset }
    }).pipe(withPlugins(config, project, hostOf(record)))
    // Running again: it has not ended (a later cleanup must see it), and its agent has said nothing yet.
    const { endedAt: _, said: _said, killing: _killing, ...running } = record
    const restored = yield* update(running, { status: "working", activity: "active", runtime: handle, signalOffset })
    yield* events.append({ type: "session.restored", sessionId, projectId: record.projectId, issueId: record.issueId })
    return restored
  })

  /**
   * The workflow state of live workers' issues, per session id: one request per project whose tracker can
   * tell (`issueStates`), and the projects whose tracker could not be asked, with why: they tell nothing, and
   * cleanup goes on without them.
   */
  const issueStates = Effect.fn("Sessions.issueStates")(function*(records: ReadonlyArray<SessionRecord>) {
    const config = yield* configs.current
    const states = new Map<string, IssueState>()
    const unanswered: Array<{ readonly name: string; readonly reason: string }> = []
    for (const project of projectsOf(config)) {
      const mine = records.filter((r) => r.projectId === project.id && worksAnIssue(r) && r.endedAt === undefined)
      if (mine.length === 0) continue
      const byIssue = yield* Tracker.use((tracker) =>
        tracker.issueStates?.([...new Set(mine.map((r) => r.issueId))]) ?? Effect.succeed(new Map<string, IssueState>())
      ).pipe(
        withPlugins(config, project),
        Effect.catch((error) => {
          unanswered.push({ name: `${project.id}'s tracker`, reason: error.message })
          return Effect.succeed<ReadonlyMap<string, IssueState>>(new Map())
        })
      )
      for (const record of mine) {
        const state = byIssue.get(record.issueId)
        if (state !== undefined) states.set(record.sessionId, state)
      }
    }
    return { states, unanswered }
  })

  /**
   * Sessions whose PR merged or closed, whose issue is completed, or whose agent is gone, each with the status and
   * reason cleaning gives it (cleanup-decision.ts). Terminals are probed once per project, and only for sessions
   * that neither their PR nor their issue settles.
   */
  const cleanupCandidates = Effect.fn("Sessions.cleanupCandidates")(function*(config: OrchestratorConfig) {
    const projects = projectsOf(config)
    const { records } = yield* store.list
    const { states, unanswered } = yield* issueStates(records)
    for (const { name, reason } of unanswered) yield* Effect.logWarning(`${name} could not tell which issues are done (${reason}); cleanup goes on without it`)
    const mine = records.filter((r) => isCleanable(r) && projects.some((p) => p.id === r.projectId))
    const unsettled = mine.filter((r) => r.runtime !== null && settledVerdict(r, states.get(r.sessionId)) === undefined)
    const liveness = new Map<string, Liveness>()
    for (const project of projects) {
      const handles = unsettled.filter((r) => r.projectId === project.id).map((r) => r.runtime!)
      if (handles.length === 0) continue
      const probed = yield* Runtime.use((runtime) => runtime.probe(handles)).pipe(withPlugins(config, project))
      for (const [id, state] of probed) liveness.set(id, state)
    }
    return mine.flatMap((record): ReadonlyArray<CleanupItem> => {
      const scm = projects.find((p) => p.id === record.projectId)?.scm
      const verdict = cleanupVerdict(record, {
        issueState: states.get(record.sessionId),
        liveness: record.runtime !== null ? liveness.get(record.runtime.id) : undefined,
        followsPrs: scm !== undefined && scm.plugin !== "none"
      })
      return verdict === undefined ? [] : [{ record, ...verdict }]
    })
  })

  const cleanup = Effect.fn("Sessions.cleanup")(function*(options: { readonly dryRun: boolean }) {
    const config = yield* configs.current
    if (!options.dryRun) yield* reconcile()
    const candidates = yield* cleanupCandidates(config)
    if (options.dryRun) return candidates
    const cleaned: Array<CleanupItem> = []
    for (const item of candidates) {
      const { record } = item
      const project = yield* projectOf(config, record)
      const removed = yield* Effect.gen(function*() {
        yield* stopRuntime(record.runtime)
        return yield* removeWorkspaceSafely(project, record, record.workspacePath, record.branch)
      }).pipe(withPlugins(config, project))
      const ended = yield* update(record, {
        status: item.status,
        activity: "exited",
        endedAt: yield* nowIso,
        ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {})
      })
      yield* events.append({
        type: "session.cleaned",
        sessionId: record.sessionId,
        projectId: record.projectId,
        issueId: record.issueId,
        ...(record.pr !== null ? { prNumber: record.pr.number } : {}),
        message: item.reason,
        data: { status: item.status, cause: item.cause, ...(removed.rescuedTo !== undefined ? { rescueRef: removed.rescuedTo } : {}) }
      })
      cleaned.push({ ...item, record: ended, ...removed })
    }
    return cleaned
  })

  /**
   * What removing `record` would cut short or lose: its terminal's liveness, its worktree's unsaved work. A live
   * session's agent whose host does not answer is not known to be gone.
   */
  const removalFacts = Effect.fnUntraced(function*(config: OrchestratorConfig, record: SessionRecord) {
    const project = projectToEnd(projectsOf(config), record)
    if (project === undefined) return factsWithoutPlugins(record, existsSync(record.workspacePath))
    return yield* Effect.gen(function*() {
      const state = REMOVABLE_STATUSES.includes(record.status) ? yield* liveness(record) : yield* probed(record)
      const workspace = yield* Workspace
      const facts: RemovalFacts = {
        running: state === undefined ? undefined : state._tag === "Alive",
        worktree: (yield* workspace.exists(record.workspacePath)) ? yield* workspace.unsavedWork(project, record.workspacePath) : "absent"
      }
      return facts
    }).pipe(withPlugins(config, project))
  })

  /**
   * Removes an ended session's terminal, worktree (already checked to hold nothing unsaved) and record; git refs stay.
   * One whose agent was found gone is told as the `errored` session it is.
   */
  const removeRecord = Effect.fnUntraced(function*(config: OrchestratorConfig, ended: SessionRecord, command: "rm" | "prune") {
    const record = REMOVABLE_STATUSES.includes(ended.status) ? ended : asAgentGone(ended)
    const project = projectToEnd(projectsOf(config), record)
    let worktreeRemoved = false
    if (project !== undefined) {
      yield* Effect.gen(function*() {
        yield* stopRuntime(record.runtime)
        const workspace = yield* Workspace
        worktreeRemoved = yield* workspace.exists(record.workspacePath)
        // Destroyed even when its directory is gone (deleted by hand): git keeps it registered until pruned.
        yield* workspace.destroy(project, record.workspacePath, { branch: record.branch, deleteBranch: false })
      }).pipe(withPlugins(config, project))
    }
    yield* store.remove(record.projectId, record.sessionId)
    const removed: Removed = {
      sessionId: record.sessionId,
      projectId: record.projectId,
      status: record.status,
      worktreeRemoved,
      ...(record.rescueRef !== undefined ? { rescueRef: record.rescueRef } : {})
    }
    yield* events.append({
      type: "session.removed",
      sessionId: record.sessionId,
      projectId: record.projectId,
      issueId: record.issueId,
      message: `orch session ${command} removed its record (${record.status})`,
      data: { status: record.status, worktreeRemoved, ...(record.rescueRef !== undefined ? { rescueRef: record.rescueRef } : {}) }
    })
    return removed
  })

  const remove = Effect.fn("Sessions.remove")(function*(sessionId: string, command: "rm" | "prune" = "rm") {
    const config = yield* configs.current
    const record = yield* store.read(sessionId)
    const verdict = removalVerdict(record, yield* removalFacts(config, record), config.configPath)
    if (verdict._tag === "Keep") return yield* new RemoveRefused({ sessionId, reason: verdict.reason })
    return yield* removeRecord(config, record, command)
  })

  /**
   * Removes every ended session's record that can go (a live one whose agent is gone has ended too); says why of those
   * that cannot. A live session whose agent runs, or cannot be looked at, is not ended: it is left out of the report.
   */
  const prune = Effect.fn("Sessions.prune")(function*(options: { readonly dryRun: boolean }) {
    const config = yield* configs.current
    if (!options.dryRun) yield* reconcile()
    const { records } = yield* store.list
    const removed: Array<Removed> = []
    const kept: Array<{ readonly sessionId: string; readonly reason: string }> = []
    for (const record of records) {
      const ended = REMOVABLE_STATUSES.includes(record.status)
      if (!ended && !isLive(record)) continue
      const facts = yield* Effect.result(removalFacts(config, record))
      if (!ended && (facts._tag === "Failure" || facts.success.running !== false)) continue
      const verdict: RemovalVerdict = facts._tag === "Failure"
        ? { _tag: "Keep", reason: `orch could not look at it: ${facts.failure.message}` }
        : removalVerdict(record, facts.success, config.configPath)
      if (verdict._tag === "Keep") kept.push({ sessionId: record.sessionId, reason: verdict.reason })
      else if (options.dryRun) {
        removed.push({
          sessionId: record.sessionId,
          projectId: record.projectId,
          status: ended ? record.status : asAgentGone(record).status,
          worktreeRemoved: existsSync(record.workspacePath),
          ...(record.rescueRef !== undefined ? { rescueRef: record.rescueRef } : {})
        })
      } else removed.push(yield* removeRecord(config, record, "prune"))
    }
    return { removed, kept } satisfies PruneReport
  })

  /**
   * Every record with the liveness of its runtime, probed in one call per runtime plugin. A session of no project of
   * the config (or with no config at all) is probed too when it is a tmux session here: on the socket its handle names.
   * `unprobed`: the projects whose plugins could not be built, and why.
   */
  const probeAll = Effect.fn("Sessions.probeAll")(function*() {
    const config = yield* configs.current
    const { records } = yield* store.list
    const result = new Map<string, Liveness>()
    // A project whose plugins cannot be built stops no listing: its sessions are not probed (their terminals unknown).
    const unprobed: Array<{ readonly project: ProjectConfig; readonly error: PluginBuildError }> = []
    for (const project of projectsOf(config)) {
      const handles = records.filter((r) => r.projectId === project.id && r.runtime !== null).map((r) => r.runtime!)
      if (handles.length === 0) continue
      const probed = yield* Runtime.use((runtime) => runtime.probe(handles)).pipe(
        withPlugins(config, project),
        Effect.catchTag(["UnknownPlugin", "PluginLoadError", "PluginConfigError"], (error) =>
          Effect.sync(() => {
            unprobed.push({ project, error })
            return new Map<string, Liveness>()
          }))
      )
      for (const [id, state] of probed) result.set(id, state)
    }
    const owned = new Set(projectsOf(config).map((p) => p.id))
    const bySocket = new Map<string, Array<RuntimeHandle>>()
    for (const record of records) {
      const handle = record.runtime
      const socket = handle === null || owned.has(record.projectId) || hostOf(record) !== LOCAL ? undefined : socketOf(handle)
      if (handle !== null && socket !== undefined) bySocket.set(socket, [...(bySocket.get(socket) ?? []), handle])
    }
    for (const [socket, handles] of bySocket) {
      const probed = yield* Effect.flatMap(makeMultiplexer(socket), (tmux) => tmux.probe(handles)).pipe(Effect.provide(context))
      for (const [id, state] of probed) result.set(id, state)
    }
    return { records, liveness: result, unprobed }
  })

  /** Starts (or reuses) a project's orchestrator session; `cliPath` is the orch its agent will call. */
  const orchestrating = yield* Semaphore.make(1)
  const orchestrate = Effect.fn("Sessions.orchestrate")(function*(projectRef: string | undefined, cliPath: string) {
    const config = yield* configs.current
    const project = yield* findProject(config, projectRef)
    return yield* startOrchestrator(config, project, cliPath).pipe(withPlugins(config, project), orchestrating.withPermits(1))
  })

  const { queueAdd, queueTask, queueList, admit } = queueing
  /** `orch queue rm`: an entry whose start was cut short is put back first (reconcile), so it can be removed. */
  const queueRemove = (ref: string) => Effect.andThen(reconcile(), queueing.queueRemove(ref))
  return {
    spawn,
    batchSpawn,
    send,
    kill,
    restore,
    cleanup,
    remove,
    prune,
    issueStates,
    reconcile,
    probeAll,
    orchestrate,
    read: store.read,
    queueAdd,
    queueTask,
    queueRemove,
    queueList,
    admit
  }
})

export class SessionManager extends Context.Service<SessionManager, Effect.Success<ReturnType<typeof makeSessionManager>>>()(
  "orch/sessions/SessionManager"
) {
  /** On the ConfigSource in context: the supervisor's, which its reload changes. */
  static readonly layerFollowing = Layer.effect(SessionManager, makeSessionManager())
  /**
   * On `config`, which it also provides as the ConfigSource (needs the store, the event log, ProjectPlugins and a
   * ChildProcessSpawner).
   */
  static readonly layerNoDeps = (config: OrchestratorConfig) => SessionManager.layerFollowing.pipe(Layer.provideMerge(ConfigSource.layer(config)))
  /** For the CLI's in-process procedures: this process is not the supervisor. */
  static readonly layer = (config: OrchestratorConfig) =>
    SessionManager.layerNoDeps(config).pipe(
      Layer.provide(ProjectPlugins.layer({ supervisor: false })),
      Layer.provide(Layer.mergeAll(SessionStore.layer, EventLog.layer))
    )
}
