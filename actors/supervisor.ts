/**
 * The supervisor: one actor per live session (a fiber with a bounded mailbox), fed by one probe cycle that
 * answers liveness for all sessions with one runtime call per project for local sessions and one round trip per
 * host for the others (which also mirrors their hooks' activity lines here), and reads agent signals from files
 * (no subprocess). A crashed actor restarts with exponential backoff; more than MAX_RESTARTS in RESTART_WINDOW_MS
 * escalates (a `supervisor.escalated` event and an urgent notification) and the actor stays down.
 * Procedures (spawn, send, kill, …) run here one session at a time, so there is one writer of session truth.
 * Every decision reads the config in force (ConfigSource); a reload builds the plugins of added and changed
 * projects first (`prepare`), then swaps them in (its commit), without touching any session or actor.
 * Its loops (probe cycle, polls, signal reader, …) run under the loop guard (loop-guard.ts): a failure is logged,
 * recorded as `supervisor.error` and backed off, never the end of the loop.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Semaphore from "effect/Semaphore"
import { join } from "node:path"
import type { ConfigChange } from "../src/config/change.ts"
import { ConfigSource } from "../src/config/ConfigSource.ts"
import { activityOf, limitOf, sourceOf } from "../src/domain/activity.ts"
import { logsFailure } from "../src/domain/backoff.ts"
import type { Hold } from "../src/domain/holds.ts"
import { newNotification } from "../src/domain/notification.ts"
import { entryLabel } from "../src/domain/queue.ts"
import { clockTime, limitKindOf, limitLineOf, resetFromText, type Told } from "../src/domain/rate-limit.ts"
import { measurable } from "../src/domain/session-size.ts"
import { type Activity, hostOf, isLive as hasLiveAgent, type SessionRecord } from "../src/domain/session.ts"
import type { AgentShape } from "../src/plugins/agent/Agent.ts"
import { ProjectPlugins, type ProjectSlots } from "../src/plugins/ProjectPlugins.ts"
import { probeHost, PS_COMMAND } from "../src/plugins/runtime/host-probe.ts"
import type { Liveness, RuntimeShape } from "../src/plugins/runtime/Runtime.ts"
import { mergeMethodOf, type ScmShape } from "../src/plugins/scm/Scm.ts"
import { MergeRefused } from "../src/sessions/errors.ts"
import { liftHolds } from "../src/sessions/queueing.ts"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import type { Removed, SessionOps } from "../src/sessions/SessionOps.ts"
import { readSignalsSince, watchActivity } from "../src/store/activity-file.ts"
import { waitingReason, writeAdmissionState } from "../src/store/admission-file.ts"
import { EventLog } from "../src/store/EventLog.ts"
import { writeFileAtomic } from "../src/store/files.ts"
import { listQueue, QueueStore } from "../src/store/QueueStore.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { cutShort } from "../src/store/spawner.ts"
import { HOST_READ_INTERVAL, makeHostWatch } from "./host-watch.ts"
import { makeIntake } from "./intake.ts"
import { makeLoopGuard, PartsFailed } from "./loop-guard.ts"
import { NotifierRouter } from "./notifier-router.ts"
import { checkThenMerge } from "./reaction-effects.ts"
import { hooksSpeak, LIMIT_LOOK_AFTER_MS } from "./rules/activity-rule.ts"
import { allCompleteStep } from "./rules/all-complete.ts"
import type { Observation } from "./rules/lifecycle.ts"
import { nextPollDelay } from "./rules/poll-pace.ts"
import { probeGroups } from "./rules/probe-groups.ts"
import { restartDecision } from "./rules/restart-policy.ts"
import { type LookEvent, type LookState, nextLook, WEBHOOK_SETTLE } from "./rules/webhook-coalescing.ts"
import { handleObservation } from "./session-actor.ts"
import { makeSessionSizes } from "./session-sizes.ts"
import { followSessionEvents } from "./tracker-updates.ts"

export const PROBE_INTERVAL = "5 seconds"
/** How often trackers that can tell issue states (tracker-b) are asked which sessions' issues are over. */
export const ISSUE_POLL_INTERVAL = "1 minute"
/** What a failed look at a PR (a webhook's, or after a merge) leaves to. */
const LOOK_AGAIN = "the next PR poll looks again"
export const MAILBOX_CAPACITY = 64
/** Admission rounds run whenever something changes, and this often otherwise. */
export const ADMISSION_INTERVAL = "3 seconds"

/** A project watched now, with its plugins (ProjectPlugins owns them). */
type ProjectRuntime = ProjectSlots

interface ActorState {
  readonly record: SessionRecord
  readonly mailbox: Queue.Queue<Observation>
  readonly lock: Semaphore.Semaphore
  /** Byte offset read so far in the session's activity.jsonl (from the record's `signalOffset` at start). */
  offset: number
  /** Who said the agent's last word and when (ms): while hooks speak its screen is not read. */
  word?: { readonly by: "hook" | "report"; readonly at: number }
  /** The agent plugin's last reading of the screen and when it was captured: read again only after newer output. */
  screen?: { readonly capturedAt: number; readonly reading: ScreenReading }
}

/** What a screen says: the agent plugin's activity and, when that is `rate_limited`, what it shows of the limit. */
interface ScreenReading extends Told {
  readonly screen?: Activity
}

/**
 * The reset time a limit's text names, read on this machine's clock: only for sessions that run here (another
 * host's clock may be in another time zone; those wait on the backoff).
 */
const resetIn = (record: SessionRecord, text: string | undefined, now: number): number | undefined =>
  text === undefined || hostOf(record) !== "local" ? undefined : resetFromText(text, now, -new Date(now).getTimezoneOffset())

/**
 * What a screen read as `rate_limited` shows of the limit, as the agent plugin reads it (else the last line naming a
 * limit). The reset is a time the line names, else when the retry it waits for is due (a wait is the same on any host).
 */
const limitShown = (record: SessionRecord, agent: AgentShape, screen: string, now: number): Told => {
  const shown = agent.limitFromScreen?.(screen)
  const line = agent.limitFromScreen === undefined ? limitLineOf(screen) : shown?.line
  const kind = shown?.kind ?? (line === undefined ? undefined : limitKindOf(line))
  const resetAt = resetIn(record, line, now) ?? (shown?.retryInMs !== undefined ? now + shown.retryInMs : undefined)
  return {
    ...(line !== undefined ? { limit: line } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(shown !== undefined ? { retrying: shown.retrying } : {}),
    ...(resetAt !== undefined ? { resetAt } : {})
  }
}

export const makeSupervisor = Effect.fnUntraced(function*() {
  const store = yield* SessionStore
  const events = yield* EventLog
  const router = yield* NotifierRouter
  const manager = yield* SessionManager
  const configs = yield* ConfigSource
  const plugins = yield* ProjectPlugins
  const fibers = yield* FiberMap.make<string>()
  const actors = new Map<string, ActorState>()
  /** Sessions whose activity file changed (from file watchers): their signals are read at once. */
  const wakeups = yield* Queue.unbounded<string>()
  const escalated = new Set<string>()
  /** The supervisor's loops: a failure is logged, recorded (`supervisor.error`) and backed off; repeated ones escalate. */
  const guard = makeLoopGuard({ events, notify: router.notify, logPath: store.paths.supervisorLog })
  const loops = {
    probe: guard("probe cycle"),
    pullRequests: guard("PR poll"),
    issues: guard("issue poll"),
    signals: guard("signal reader"),
    cleanup: guard("session cleanup"),
    looks: guard("PR look"),
    adoption: guard("adoption"),
    admission: guard("admission"),
    hosts: guard("host watch"),
    sizes: guard("session sizes"),
    intake: guard("intake")
  }
  const sizes = yield* makeSessionSizes({
    root: store.paths.root,
    ps: (host) =>
      configs.current.pipe(
        Effect.flatMap(plugins.connections),
        Effect.flatMap((connections) => connections.run(host, PS_COMMAND)),
        Effect.flatMap((result) => result.exitCode === 0 ? Effect.succeed(result.stdout) : Effect.fail({ message: `ps failed: ${result.stderr.trim()}` }))
      )
  })
  const hostWatch = yield* makeHostWatch({
    events,
    router,
    hosts: Effect.map(configs.current, (config) => config.hosts),
    connections: Effect.flatMap(configs.current, plugins.connections),
    hostsFile: store.paths.hosts
  })
  const projects = new Map<string, ProjectRuntime>()
  const initial = yield* configs.current
  for (const project of Object.values(initial.projects)) projects.set(project.id, yield* plugins.of(initial, project))
  yield* followSessionEvents({ events, store, trackerOf: (projectId) => projects.get(projectId)?.tracker, loop: guard("tracker updates") })
  const isLive = (record: SessionRecord) => hasLiveAgent(record) && projects.has(record.projectId)

  const escalate = (sessionId: string, reason: string) =>
    Effect.gen(function*() {
      escalated.add(sessionId)
      yield* events.append({ type: "supervisor.escalated", sessionId, message: reason })
      yield* router.notify(
        yield* newNotification({
          type: "supervisor.escalated",
          priority: "urgent",
          title: `${sessionId}: orch stopped watching this session`,
          message: reason,
          sessionId
        })
      )
    })

  /** Runs the actor, restarting it after a crash as restart-policy.ts decides, until it is stopped or escalated. */
  const supervise = (sessionId: string, body: Effect.Effect<never, unknown>) =>
    Effect.gen(function*() {
      let crashes: ReadonlyArray<number> = []
      for (;;) {
        const exit = yield* Effect.exit(body)
        if (Exit.isFailure(exit) && Exit.hasInterrupts(exit) && !Exit.hasFails(exit) && !Exit.hasDies(exit)) return
        const decision = restartDecision(crashes, yield* Clock.currentTimeMillis)
        if (decision._tag === "Escalate") return yield* escalate(sessionId, decision.reason)
        crashes = decision.crashes
        yield* Effect.sleep(decision.delayMs)
      }
    })

  /**
   * `all-complete`: whether a worker was live since the last time none was. Set when its actor starts too, so a
   * session that begins and ends between two probe cycles still counts.
   */
  let hadLiveSessions = false
  const startActor = (record: SessionRecord) =>
    Effect.gen(function*() {
      if (actors.has(record.sessionId) || escalated.has(record.sessionId)) return
      if (record.role === undefined) hadLiveSessions = true
      const state: ActorState = {
        record,
        mailbox: yield* Queue.bounded<Observation>(MAILBOX_CAPACITY),
        lock: yield* Semaphore.make(1),
        offset: record.signalOffset ?? 0,
        ...(record.said !== undefined ? { word: { by: record.said.by, at: Date.parse(record.said.at) } } : {})
      }
      actors.set(record.sessionId, state)
      const watcher = watchActivity(store.paths.session(record.projectId, record.sessionId), () => Queue.offerUnsafe(wakeups, record.sessionId))
      // Each observation is decided by the config and the project's plugins in force when it is taken.
      const handle = (observation: Observation) =>
        Effect.flatMap(configs.current, (config) => {
          const owner = projects.get(record.projectId)
          // A reload removed the project: its commit is stopping this actor.
          if (owner === undefined) return Effect.void
          const ctx = { config, project: owner.project, runtime: owner.runtime, ...(owner.scm ? { scm: owner.scm } : {}), store, events, router }
          return Effect.asVoid(handleObservation(ctx, record.sessionId, observation))
        })
      const loop = Effect.forever(Effect.flatMap(Queue.take(state.mailbox), (observation) => state.lock.withPermits(1)(handle(observation))))
      yield* FiberMap.run(
        fibers,
        record.sessionId,
        supervise(record.sessionId, loop).pipe(Effect.ensuring(Effect.sync(() => {
          actors.delete(record.sessionId)
          watcher?.close()
        })))
      )
    })

  const stopActor = (sessionId: string) => Effect.andThen(FiberMap.remove(fibers, sessionId), Effect.sync(() => actors.delete(sessionId)))

  const observe = (sessionId: string, observation: Observation) => {
    const state = actors.get(sessionId)
    return state === undefined ? Effect.void : Queue.offer(state.mailbox, observation)
  }

  /** Hands a session's new signals (lines of its activity file since the last read) to its actor. */
  const deliverSignals = Effect.fnUntraced(function*(sessionId: string, now: number) {
    const state = actors.get(sessionId)
    if (state === undefined) return
    const { signals, offset } = readSignalsSince(store.paths.activity(state.record.projectId, sessionId), state.offset)
    state.offset = offset
    for (const { signal, end } of signals) {
      const activity = activityOf(signal)
      if (activity === undefined) continue
      const parsed = signal.ts !== undefined ? Date.parse(signal.ts) : Number.NaN
      const at = Number.isNaN(parsed) ? now : parsed
      state.word = { by: sourceOf(signal), at }
      const limit = limitOf(signal)
      const resetAt = resetIn(state.record, limit, at)
      const kind = limit === undefined ? undefined : limitKindOf(limit)
      yield* observe(sessionId, {
        _tag: "Signal",
        by: state.word.by,
        activity,
        at,
        offset: end,
        ...(signal.report !== undefined ? { report: signal.report } : {}),
        ...(signal.note !== undefined ? { note: signal.note } : {}),
        // A hook or a report of a limit comes when the agent's turn ended on it: it gave up.
        ...(limit !== undefined ? { limit, retrying: false } : {}),
        ...(kind !== undefined ? { kind } : {}),
        ...(resetAt !== undefined ? { resetAt } : {})
      })
    }
  })

  /**
   * What the agent plugin reads off a session's screen, for agents that can be read that way and whose hooks
   * are silent. The screen is captured again only when the terminal may have printed something since the last
   * capture (every time when the runtime cannot tell). tmux tells output time to the second, taken as the end of
   * that second: a capture within the second of the last output is not trusted to have seen all of it.
   */
  const readScreen = Effect.fnUntraced(
    function*(record: SessionRecord, state: ActorState, owner: ProjectRuntime, lastOutputAt: number | undefined, now: number) {
      if (!owner.agent.readsScreen || hooksSpeak(state.word, now, LIMIT_LOOK_AFTER_MS)) return {}
      if (state.screen !== undefined && lastOutputAt !== undefined && lastOutputAt < state.screen.capturedAt) return state.screen.reading
      // A capture that fails tells nothing this cycle (and is tried again next cycle): the probe's liveness stands.
      const captured = yield* Effect.option(owner.runtime.capture(record.runtime!))
      if (captured._tag === "None") return {}
      const activity = owner.agent.activityFromScreen(captured.value)
      const reading: ScreenReading = {
        ...(activity !== undefined ? { screen: activity } : {}),
        ...(activity === "rate_limited" ? limitShown(record, owner.agent, captured.value, now) : {})
      }
      state.screen = { capturedAt: now, reading }
      return reading
    }
  )

  yield* Queue.take(wakeups).pipe(
    Effect.flatMap((sessionId) => Effect.flatMap(Clock.currentTimeMillis, (now) => deliverSignals(sessionId, now))),
    loops.signals.forever,
    Effect.forkScoped
  )

  /** What recovery did when this supervisor started (spawns undone, kills finished, queued starts recovered), for `orch start` to say. */
  const recovered: Array<string> = []
  /** Sessions adopted at start whose first probe is still to come (`supervisor.adopted`; none when none were). */
  let awaitingFirstProbe: number | undefined
  /** After the first probe cycle that follows adoption: how many sessions were adopted and what the probe found. */
  const reportAdoption = (probed: Record<"alive" | "exited" | "gone" | "unknown", number>) =>
    Effect.suspend(() => {
      const sessions = awaitingFirstProbe
      if (sessions === undefined) return Effect.void
      awaitingFirstProbe = undefined
      const found = Object.entries(probed).filter(([, n]) => n > 0).map(([state, n]) => `${n} ${state}`).join(", ") || "nothing to probe"
      return events.append({
        type: "supervisor.adopted",
        message: `pid ${process.pid} adopted ${sessions} session(s); first probe: ${found}`,
        data: { pid: process.pid, sessions, ...probed }
      })
    })

  /**
   * The liveness of `records`' sessions: local ones through their project's runtime (one call per project), those
   * on other hosts through their host, one round trip per host for all its sessions (of every project), which also
   * brings their new activity lines into the local activity files. A session left out of the answer was not probed
   * (its runtime or host could not answer): it reads `unknown`, never exited.
   */
  /** Probe cycles in a row each host failed, while it fails. */
  const unprobedCycles = new Map<string, number>()
  const probeAllNow = Effect.fnUntraced(function*(records: ReadonlyArray<SessionRecord>) {
    const config = yield* configs.current
    const groups = probeGroups(records)
    const failed: Array<{ readonly name: string; readonly reason: string }> = []
    const local = [...groups.local].map(([projectId, mine]) =>
      projects.get(projectId)!.runtime.probe(mine.map((r) => r.runtime!)).pipe(
        Effect.map((answer) => mine.flatMap((r): Array<[string, Liveness]> => answer.has(r.runtime!.id) ? [[r.sessionId, answer.get(r.runtime!.id)!]] : [])),
        // A probe that fails is an observation: its sessions read `unknown` (lifecycle.ts), never dead.
        Effect.orElseSucceed(() => [])
      )
    )
    const connections = groups.remote.size === 0 ? undefined : yield* Effect.result(plugins.connections(config))
    if (connections?._tag === "Failure") failed.push({ name: "hosts", reason: connections.failure.message })
    // The minute's reads of a host (headroom, session sizes' ps) ride its probe when due.
    const psDue = yield* sizes.due
    const ps = new Map<string, string>()
    const remote = [...groups.remote].map(([host, mine]) => {
      const spec = config.hosts[host]
      if (spec === undefined || connections === undefined || connections._tag === "Failure") return Effect.succeed([])
      return Effect.flatMap(hostWatch.due(host), (headroomDue) =>
        probeHost(
          connections.success,
          store.paths,
          host,
          spec.dataDir,
          mine.map((r) => ({ projectId: r.projectId, sessionId: r.sessionId, runtime: r.runtime! })),
          { headroom: headroomDue, ps: psDue }
        ))
        .pipe(
          Effect.tap((answer) =>
            Effect.gen(function*() {
              if (answer.ps !== undefined) ps.set(host, answer.ps)
              if (answer.headroom !== undefined) yield* hostWatch.took(host, answer.headroom)
            })
          ),
          Effect.tap(() => {
            const streak = unprobedCycles.get(host)
            if (streak === undefined) return Effect.void
            unprobedCycles.delete(host)
            return Effect.logInfo(`host ${host}: its sessions answered the probe again after ${streak} failed cycle${streak === 1 ? "" : "s"}`)
          }),
          Effect.map((answer) => {
            if (answer.mirrorFailed !== undefined) failed.push({ name: `host ${host}'s activity`, reason: answer.mirrorFailed })
            return mine.flatMap((r): Array<[string, Liveness]> =>
              answer.liveness.has(r.runtime!.id) ? [[r.sessionId, answer.liveness.get(r.runtime!.id)!]] : []
            )
          }),
          Effect.catch((error) => {
            // The host watch tells of the outage (host.down, one notification); the log keeps a few lines of it.
            const streak = (unprobedCycles.get(host) ?? 0) + 1
            unprobedCycles.set(host, streak)
            return Effect.as(
              logsFailure(streak)
                ? Effect.logWarning(
                  `host ${host}: its sessions could not be probed, ${streak} cycle${
                    streak === 1 ? "" : "s"
                  } in a row; they read unknown until it answers; last: ${error.message}`
                )
                : Effect.void,
              []
            )
          })
        )
    })
    const answers = yield* Effect.all([...local, ...remote], { concurrency: "unbounded" })
    return {
      records: [...[...groups.local.values()].flat(), ...[...groups.remote.values()].flat()],
      liveness: new Map(answers.flat()),
      failed,
      ps
    }
  })

  /** Undoes interrupted spawns (SessionManager's reconcile: `session.reconciled` each); what it frees, admission may fill. */
  const undoInterrupted = Effect.gen(function*() {
    const done = yield* manager.reconcile()
    for (const { line } of done) yield* Effect.logInfo(line)
    if (done.length > 0) yield* admitSoon
  })

  /** One probe at a time: a cycle run now (after a cleanup) and the periodic one would mirror the same lines twice. */
  const probing = yield* Semaphore.make(1)
  const probeAll = (records: ReadonlyArray<SessionRecord>) => probing.withPermits(1)(probeAllNow(records))

  /** One probe cycle: sync actors with the records, probe every runtime once, read signals, let time pass. */
  const cycle = Effect.fn("Supervisor.cycle")(function*() {
    const { records } = yield* store.list
    // A spawn whose process died half-way (lists show it interrupted) is undone now, not at some later command.
    if (cutShort(records).some((r) => projects.has(r.projectId))) {
      yield* loops.cleanup.attempt(undoInterrupted, "orch tries again at the next probe cycle")
    }
    // A merged or closed PR ends its session: terminal and worktree go (unsaved work is rescued first).
    if (records.some((r) => r.endedAt === undefined && (r.pr?.state === "merged" || r.pr?.state === "closed"))) {
      yield* loops.cleanup.attempt(manager.cleanup({ dryRun: false }), "orch tries again at the next probe cycle")
    }
    const live = records.filter(isLive)
    // Work still to do (a spawn under way, an entry queued) is not "all complete".
    const queued = (yield* listQueue(store.paths.root).pipe(Effect.orElseSucceed(() => []))).filter((entry) => projects.has(entry.projectId))
    const pending = records.filter((r) => r.role === undefined && r.status === "spawning").length + queued.length
    yield* allComplete(records, live.filter((r) => r.role === undefined).length + pending)
    const liveIds = new Set(live.map((r) => r.sessionId))
    // A session that ended frees its budgets: admission looks at the queue now.
    const ended = [...actors.keys()].filter((id) => !liveIds.has(id))
    for (const id of ended) yield* stopActor(id)
    if (ended.length > 0) yield* admitSoon
    for (const record of live) yield* startActor(record)
    const now = yield* Clock.currentTimeMillis
    const probedCounts = { alive: 0, exited: 0, gone: 0, unknown: 0 }
    const probed = yield* probeAll(live.filter((r) => r.runtime !== null && projects.has(r.projectId)))
    for (const record of probed.records) {
      const owner = projects.get(record.projectId)
      const state = actors.get(record.sessionId)
      if (owner === undefined || state === undefined) continue
      yield* deliverSignals(record.sessionId, now)
      const liveness = probed.liveness.get(record.sessionId)
      probedCounts[liveness === undefined ? "unknown" : liveness._tag === "Alive" ? "alive" : liveness._tag === "Exited" ? "exited" : "gone"]++
      const lastOutputAt = liveness?._tag === "Alive" ? liveness.lastOutputAt : undefined
      const screen = liveness?._tag === "Alive" ? yield* readScreen(record, state, owner, lastOutputAt, now) : {}
      yield* observe(record.sessionId, {
        _tag: "Probe",
        liveness: liveness === undefined ? "error" : liveness._tag === "Alive" ? "alive" : liveness._tag === "Exited" ? "exited" : "gone",
        ...screen,
        ...(lastOutputAt !== undefined ? { lastOutputAt } : {})
      })
      yield* observe(record.sessionId, { _tag: "Tick" })
    }
    const measuredAt = yield* Clock.currentTimeMillis
    const running = probed.records.flatMap((record) => {
      const liveness = probed.liveness.get(record.sessionId)
      return liveness?._tag === "Alive" && liveness.pid !== undefined && measurable(record, measuredAt)
        ? [{ agent: record.agent.plugin, host: hostOf(record), pid: liveness.pid }]
        : []
    })
    yield* loops.sizes.attempt(sizes.sample(running, probed.ps), "orch measures the sessions again at the next minute")
    yield* reportAdoption(probedCounts)
    if (probed.failed.length > 0) return yield* new PartsFailed({ parts: probed.failed })
  })

  /**
   * On start: undo half-made spawns, adopt every live session (an actor each), and report terminal sessions
   * named like orch's (`<prefix>-<n>`, `<prefix>-orchestrator`) that have no record: orch leaves them alone.
   */
  const adopt = Effect.fn("Supervisor.adopt")(function*() {
    yield* loops.adoption.attempt(
      Effect.flatMap(
        manager.reconcile(),
        (done) => Effect.forEach(done, ({ line }) => Effect.andThen(Effect.logInfo(line), Effect.sync(() => void recovered.push(line))), { discard: true })
      ),
      "the next session command undoes half-made spawns"
    )
    const { records } = yield* store.list
    const live = records.filter(isLive)
    for (const record of live) {
      yield* startActor(record)
      yield* events.append({ type: "session.adopted", sessionId: record.sessionId, projectId: record.projectId, issueId: record.issueId })
    }
    if (live.length > 0) awaitingFirstProbe = live.length
    const known = new Set(records.map((r) => r.sessionId))
    for (const { project, runtime } of projects.values()) {
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
    }
  })

  /** `all-complete`: when the last live session ends, once per time it happens. */
  const allComplete = Effect.fnUntraced(function*(records: ReadonlyArray<SessionRecord>, liveCount: number) {
    const step = allCompleteStep(hadLiveSessions, liveCount)
    hadLiveSessions = step.hadLiveWorkers
    const reaction = (yield* configs.current).reactions["all-complete"]
    if (!step.fire) return
    yield* events.append({ type: "reaction.triggered", reaction: "all-complete", action: reaction.action, data: { auto: reaction.auto } })
    if (!reaction.auto || reaction.action !== "notify") return
    const summary = records.filter((r) => r.role === undefined).map((r) => `${r.sessionId}: ${r.status}${r.pr ? ` (PR #${r.pr.number} ${r.pr.state})` : ""}`)
    yield* router.notify(
      yield* newNotification({
        type: "reaction.all-complete",
        priority: reaction.priority ?? "info",
        title: "all sessions complete",
        message: [reaction.message ?? "Every session has finished.", ...(reaction.includeSummary ? summary : [])].join("\n")
      })
    )
  })

  const budgetsByProject = () =>
    [...projects.values()].flatMap(({ project, scm }) => {
      const budget = scm?.budget?.()
      return budget === undefined ? [] : [[project.id, budget] as const]
    })

  /** One repohost poll: each live worker's pull request, as seen by its project's scm, to its actor. */
  const pollPullRequests = Effect.fn("Supervisor.pollPullRequests")(function*() {
    const workers = [...actors.values()].map((state) => state.record).filter((record) => record.role === undefined)
    // A project whose repohost fails holds up no other; its failure fails the poll once all were asked.
    const failed = yield* Effect.forEach([...projects.values()], ({ project, scm }) => {
      const records = workers.filter((record) => record.projectId === project.id)
      if (scm === undefined || records.length === 0) return Effect.succeed([])
      // One batched question per project where the scm can (one GraphQL query for up to 25 branches).
      const views = scm.observeMany !== undefined
        ? scm.observeMany(records.map((record) => record.branch))
        : Effect.map(
          Effect.forEach(records, (record) => Effect.map(scm.observe(record.branch), (view) => [record.branch, view] as const)),
          (entries) => new Map(entries)
        )
      return views.pipe(
        Effect.flatMap((byBranch) =>
          Effect.forEach(records, (record) => {
            const view = byBranch.get(record.branch)
            return view === undefined ? Effect.void : observe(record.sessionId, { _tag: "PullRequest", ...view })
          }, { discard: true })
        ),
        Effect.as([]),
        Effect.catch((error) => Effect.succeed([{ name: project.id, reason: error.message }]))
      )
    }).pipe(Effect.map((parts) => parts.flat()))
    // What is left of the repohost's rate limit, for `orch status` (which reads files only).
    const budgets = Object.fromEntries(budgetsByProject())
    if (Object.keys(budgets).length > 0) {
      yield* writeFileAtomic(
        join(store.paths.root, "repohost.json"),
        `${JSON.stringify({ checkedAt: new Date(yield* Clock.currentTimeMillis).toISOString(), budgets })}\n`
      )
    }
    if (failed.length > 0) return yield* new PartsFailed({ parts: failed })
  })

  /** One tracker poll: sessions whose issue is completed (done, canceled) end like those whose PR merged. */
  const pollIssues = Effect.fn("Supervisor.pollIssues")(function*() {
    if (![...projects.values()].some((p) => p.tracker.issueStates !== undefined)) return
    const { records } = yield* store.list
    const { states, unanswered } = yield* manager.issueStates(records.filter((r) => isLive(r) && r.role === undefined))
    if ([...states.values()].some((state) => state.completed)) yield* manager.cleanup({ dryRun: false })
    if (unanswered.length > 0) return yield* new PartsFailed({ parts: unanswered })
  })

  /**
   * A webhook said `branch` of `repo` changed: look at its PR now rather than at the next poll, deliveries
   * coalesced as webhook-coalescing.ts decides (the state of each session's look is kept here).
   */
  const looks = new Map<string, LookState>()
  const lookStep = (sessionId: string, event: LookEvent) =>
    Effect.sync(() => {
      const { state, action } = nextLook(looks.get(sessionId), event)
      if (state === undefined) looks.delete(sessionId)
      else looks.set(sessionId, state)
      return action
    })
  const lookAt = (sessionId: string, branch: string, scm: ScmShape): Effect.Effect<void> => {
    const look: Effect.Effect<void> = scm.observe(branch).pipe(
      Effect.flatMap((view) => observe(sessionId, { _tag: "PullRequest", ...view })),
      (look) => loops.looks.attempt(look, LOOK_AGAIN),
      Effect.andThen(lookStep(sessionId, "look-ended")),
      Effect.flatMap((action) => (action === "look" ? look : Effect.void))
    )
    return Effect.flatMap(lookStep(sessionId, "delivery"), (action) =>
      action !== "settle" ? Effect.void : Effect.sleep(WEBHOOK_SETTLE).pipe(
        Effect.andThen(lookStep(sessionId, "settled")),
        Effect.andThen(look),
        Effect.onInterrupt(() => lookStep(sessionId, "stopped"))
      ))
  }
  const branchChanged = Effect.fn("Supervisor.branchChanged")((repo: string, branch: string) =>
    Effect.forEach(
      [...actors.values()].filter((state) => state.record.branch === branch && projects.get(state.record.projectId)?.project.repo === repo),
      (state) => {
        const scm = projects.get(state.record.projectId)?.scm
        return scm === undefined ? Effect.void : lookAt(state.record.sessionId, branch, scm)
      },
      { discard: true }
    )
  )

  /** Runs a procedure on one session while its actor holds still. */
  const exclusive = <A, E>(sessionId: string, effect: Effect.Effect<A, E>) => {
    const state = actors.get(sessionId)
    return state === undefined ? effect : state.lock.withPermits(1)(effect)
  }
  const refresh = Effect.asVoid(Effect.flatMap(store.list, ({ records }) => Effect.forEach(records.filter(isLive), startActor)))

  /**
   * Removes a session's record with its actor stopped first (an actor writing after would bring the record back);
   * when the removal is refused, the actors of live records start again.
   */
  const removeStopped = (sessionId: string, command: "rm" | "prune") =>
    exclusive(sessionId, Effect.andThen(stopActor(sessionId), manager.remove(sessionId, command))).pipe(Effect.tapError(() => refresh))

  /** A probe cycle now (a procedure changed the records): a failure is reported as the loop's are. */
  const cycleNow = loops.probe.attempt(Effect.suspend(() => cycle()), "orch tries again at the next probe cycle")

  /**
   * One admission round (queue.ts): start what the rule admits, one at a time; remember (and write, for
   * `orch status`) what waits and on what. One round at a time; none once admission is halted (`orch stop`).
   */
  const admitting = yield* Semaphore.make(1)
  let waiting: ReadonlyMap<string, string> = new Map()
  let halted = false
  let round: Fiber.Fiber<void, unknown> | undefined
  const roundBody = Effect.gen(function*() {
    const { waiting: left, dropped, held } = yield* manager.admit()
    waiting = new Map(left.map((w) => [w.entry.id, w.reason]))
    // Queued work that could never start left the queue: people hear of it, not only the event log.
    for (const { entry, reason } of dropped) {
      yield* router.notify(
        yield* newNotification({
          type: "queue.dropped",
          priority: "warning",
          title: `${entry.projectId} ${entryLabel(entry)}: queued work could not start`,
          message: `${entry.id} left the queue: ${reason}. Fix that, then queue it again (\`orch queue add ${entry.projectId} …\`).`,
          projectId: entry.projectId
        })
      )
    }
    // A place that cannot start a project's sessions is told once, when it is first held back; its work waits.
    for (const { hold } of held.filter((news) => news.fresh)) yield* router.notify(yield* holdNotification(hold))
    yield* writeAdmissionState(store.paths.root, {
      pid: process.pid,
      at: new Date(yield* Clock.currentTimeMillis).toISOString(),
      waiting: Object.fromEntries(waiting)
    })
    yield* refresh
  })
  /** The one notification a new hold gets: what failed where, and when orch tries again (or what else happens meanwhile). */
  const holdNotification = Effect.fnUntraced(function*(hold: Hold) {
    const elsewhere = Object.keys((yield* configs.current).hosts).length > 0
    const where = hold.host === undefined ? undefined : hold.host === "local" ? "this machine" : `host ${hold.host}`
    const when = clockTime(yield* Clock.currentTimeMillis)(Date.parse(hold.retryAt))
    const meanwhile = where !== undefined && elsewhere
      ? `Its queued work goes to another host meanwhile; orch tries ${where} again ${when} (\`orch hosts\` shows why).`
      : `Its queued work waits; orch tries again ${when}, or at once when the project's config changes.`
    return yield* newNotification({
      type: "queue.held",
      priority: "warning",
      title: where === undefined ? `${hold.project}: its queued work is held` : `${hold.project}: ${where} could not start its session`,
      message: `orch could not start a session of ${hold.project}${where === undefined ? "" : ` on ${where}`}: ${hold.reason}. ${meanwhile}`,
      projectId: hold.project
    })
  })

  const admitRound = admitting.withPermits(1)(Effect.gen(function*() {
    if (halted) return
    const fiber = yield* Effect.forkChild(roundBody)
    round = fiber
    const exit = yield* Fiber.await(fiber)
    round = undefined
    // Halted meanwhile: the round was cancelled and put its entry back; nothing more to say.
    if (Exit.isFailure(exit) && !(Exit.hasInterrupts(exit) && halted)) return yield* Effect.failCause(exit.cause)
  }))
  /**
   * Stops admitting for good (`orch stop`, before anything is killed): no round starts, and one under way is cancelled
   * (its spawn undoes what it made and its entry goes back where it was); answers once it has ended.
   */
  const haltAdmission = Effect.gen(function*() {
    halted = true
    const current = round
    if (current !== undefined) yield* Fiber.interrupt(current)
    yield* admitting.withPermits(1)(Effect.void)
  })
  /** Something changed (a session ended, a PR merged, the queue grew): the admission loop runs a round now. */
  const wakeAdmission = yield* Queue.sliding<void>(1)
  const admitSoon = Effect.asVoid(Queue.offer(wakeAdmission, undefined))
  const intake = makeIntake({
    root: store.paths.root,
    events,
    queue: QueueStore.make(store.paths.root, events),
    records: Effect.map(store.list, ({ records }) => records),
    projects: Effect.sync(() => [...projects.values()]),
    admitSoon
  })

  const ops: SessionOps = {
    // The new session's actor starts from the record the spawn answers with: no listing of every record first. The
    // spawn reconciles only what it is owed: this supervisor's start and its probe cycle undo the rest.
    spawn: (project, target) =>
      Effect.tap(manager.spawn(project, target, { reconcile: "owed" }), ({ record }) => (isLive(record) ? startActor(record) : Effect.void)),
    batchSpawn: (project, issues, onOutcome) => Effect.tap(manager.batchSpawn(project, issues, onOutcome), () => Effect.andThen(refresh, admitSoon)),
    send: (sessionId, message) => exclusive(sessionId, manager.send(sessionId, message)),
    // A kill is carried out whole once begun, even if whoever asked goes away (a closed tab, a killed `orch`): cut
    // short here, by a process that lives on, nothing would finish it.
    kill: (sessionId) =>
      Effect.tap(exclusive(sessionId, Effect.uninterruptible(manager.kill(sessionId))), () => Effect.andThen(stopActor(sessionId), admitSoon)),
    queueAdd: (project, issues, priority) => Effect.tap(manager.queueAdd(project, issues, priority), () => admitSoon),
    queueTask: (project, task, priority) => Effect.tap(manager.queueTask(project, task, priority), () => admitSoon),
    queueList: () =>
      Effect.map(
        manager.queueList(),
        (entries) =>
          entries.map((entry) => ({
            ...entry,
            reason: waitingReason({ pid: process.pid, at: "", waiting: Object.fromEntries(waiting) }, process.pid, entry)
          }))
      ),
    queueRemove: (ref) => manager.queueRemove(ref),
    restore: (sessionId) => Effect.tap(exclusive(sessionId, manager.restore(sessionId)), () => Effect.andThen(stopActor(sessionId), refresh)),
    cleanup: (options) => Effect.tap(manager.cleanup(options), () => cycleNow),
    remove: (sessionId) => removeStopped(sessionId, "rm"),
    prune: (options) =>
      options.dryRun ? manager.prune(options) : Effect.gen(function*() {
        // What a dry run would remove, each then removed as `rm` would, its actor stopped first.
        const plan = yield* manager.prune({ dryRun: true })
        const removed: Array<Removed> = []
        const kept = [...plan.kept]
        for (const candidate of plan.removed) {
          const result = yield* Effect.result(removeStopped(candidate.sessionId, "prune"))
          if (result._tag === "Success") removed.push(result.success)
          else kept.push({ sessionId: candidate.sessionId, reason: result.failure.message })
        }
        return { removed, kept }
      })
  }

  /** A person asked to merge a session's PR (the dashboard): merged only as auto-merge would, looked at again now. */
  const merge = Effect.fn("Supervisor.merge")((sessionId: string) =>
    exclusive(
      sessionId,
      Effect.gen(function*() {
        const record = yield* store.read(sessionId)
        const scm = projects.get(record.projectId)?.scm
        if (scm === undefined || record.pr === null) return yield* new MergeRefused({ sessionId, reason: "it has no pull request orch can merge" })
        const blocker = yield* checkThenMerge(scm, record, mergeMethodOf(projects.get(record.projectId)?.project.scm))
        if (blocker !== undefined) return yield* new MergeRefused({ sessionId, reason: blocker })
        return { prNumber: record.pr.number, branch: record.branch, scm }
      })
    ).pipe(
      // Look at the PR once more, so the session shows it merged now rather than at the next poll.
      Effect.tap(({ branch, scm }) =>
        loops.looks.attempt(scm.observe(branch).pipe(Effect.flatMap((view) => observe(sessionId, { _tag: "PullRequest", ...view }))), LOOK_AGAIN)
      ),
      Effect.map(({ prNumber }) => ({ prNumber }))
    )
  )

  /**
   * A reload, first half: ProjectPlugins builds the plugins of the projects `change` adds or changes. When one
   * cannot be built, nothing has changed. Its result, the second half, cannot fail: it puts `change.next` in force
   * (the new plugins replace the old, which close; the config source changes) and stops the actors of sessions
   * whose project is gone, whose agents keep running unwatched. It answers those sessions' records.
   */
  const prepare = Effect.fn("Supervisor.prepare")(function*(change: ConfigChange) {
    const prepared = yield* plugins.prepare(change)
    return Effect.gen(function*() {
      yield* prepared.commit
      for (const id of change.removed) projects.delete(id)
      for (const slots of prepared.built) projects.set(slots.project.id, slots)
      yield* configs.replace(change.next)
      const unwatched = [...actors.values()].map((state) => state.record).filter((record) => !projects.has(record.projectId))
      for (const record of unwatched) yield* stopActor(record.sessionId)
      return unwatched
    }).pipe(Effect.uninterruptible)
  })

  /**
   * After a reload changed these projects (or the hosts, when `all`): whatever held their queued work back may be
   * fixed, so their holds end and admission looks again now.
   */
  const retryHeld = Effect.fn("Supervisor.retryHeld")(function*(projectIds: ReadonlyArray<string>) {
    let lifted = 0
    for (const id of projectIds) lifted += yield* liftHolds(store.paths.root, events, id, undefined, "its config changed")
    if (lifted > 0) yield* admitSoon
  })

  /** After a reload: the live sessions of the projects it added get actors. Answers their records. */
  const adoptProjects = Effect.fn("Supervisor.adoptProjects")(function*(projectIds: ReadonlyArray<string>) {
    if (projectIds.length === 0) return []
    const { records } = yield* store.list
    const live = records.filter((record) => projectIds.includes(record.projectId) && isLive(record))
    for (const record of live) yield* startActor(record)
    return live
  })

  return {
    adopt,
    /** What recovery did at this supervisor's start, a line each. */
    recovered: Effect.sync((): ReadonlyArray<string> => [...recovered]),
    cycle,
    /** Every remote host's headroom read, and hosts.json written (HOST_READ_INTERVAL apart). */
    hostRound: hostWatch.round,
    intakeRound: intake.round,
    intakeDue: intake.untilDue,
    cycleNow,
    admitRound,
    haltAdmission,
    /** Waits until something changed, or ADMISSION_INTERVAL passed. */
    admissionDue: Effect.asVoid(Effect.timeoutOption(Queue.take(wakeAdmission), ADMISSION_INTERVAL)),
    loops,
    /** A guard for another loop the supervisor runs (the config file's watch and reloads). */
    guard,
    pollPullRequests,
    pollIssues,
    branchChanged,
    merge,
    budgets: () => budgetsByProject().map(([, budget]) => budget),
    ops,
    observe,
    prepare,
    adoptProjects,
    retryHeld,
    actorCount: Effect.sync(() => actors.size),
    /** The hosts of the config in force, local first. */
    hosts: Effect.map(configs.current, (config) => ["local", ...Object.keys(config.hosts)]),
    /** The projects watched now. */
    projects: Effect.sync(() => [...projects.values()].map((p) => p.project)),
    /** The runtime of a project watched now (a reload may make it again). */
    runtimeOf: (projectId: string): RuntimeShape | undefined => projects.get(projectId)?.runtime
  }
})

export class Supervisor extends Context.Service<Supervisor, Effect.Success<ReturnType<typeof makeSupervisor>>>()("orch/actors/Supervisor") {
  /** The supervisor with its probe cycle running every PROBE_INTERVAL for as long as the layer lives. */
  static readonly layer = Layer.effect(
    Supervisor,
    Effect.tap(makeSupervisor(), (supervisor) =>
      Effect.gen(function*() {
        const configs = yield* ConfigSource
        const { loops } = supervisor
        yield* supervisor.adopt()
        yield* loops.probe.forever(Effect.suspend(() => supervisor.cycle()), Effect.succeed(Duration.toMillis(PROBE_INTERVAL))).pipe(Effect.forkScoped)
        yield* loops.issues.forever(Effect.suspend(() => supervisor.pollIssues()), Effect.succeed(Duration.toMillis(ISSUE_POLL_INTERVAL))).pipe(
          Effect.forkScoped
        )
        // The poll paces itself by the rate-limit budget (actors/rules/poll-pace.ts).
        const pace = Effect.gen(function*() {
          const { pollIntervalMs } = yield* configs.current
          return nextPollDelay(pollIntervalMs, supervisor.budgets(), yield* Clock.currentTimeMillis)
        })
        yield* loops.pullRequests.forever(Effect.suspend(() => supervisor.pollPullRequests()), pace).pipe(Effect.forkScoped)
        yield* loops.admission.forever(Effect.andThen(supervisor.admissionDue, supervisor.admitRound), Effect.succeed(0)).pipe(Effect.forkScoped)
        yield* loops.hosts.forever(Effect.suspend(() => supervisor.hostRound()), Effect.succeed(Duration.toMillis(HOST_READ_INTERVAL))).pipe(
          Effect.forkScoped
        )
        yield* loops.intake.forever(Effect.suspend(() => supervisor.intakeRound()), supervisor.intakeDue).pipe(Effect.forkScoped)
      }))
  )
}
