/**
 * Spawning a session, in the spec's order: worktree and branch, terminal session `<prefix>-<n>`, the agent
 * launched with its prompt, the record, the `session.spawned` event. Each step writes what it is about to make
 * into the record's spawn journal first, and undoes what it made if a later step fails (a Scope finalizer that
 * sees the failure), so a failed spawn leaves nothing behind and one killed half-way can be undone later.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { randomUUID } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import type { ProjectConfig } from "../config/schema.ts"
import type { NewEvent } from "../domain/event.ts"
import { isIssueId, ISSUE_ID_EXPECTED, normalIssueId } from "../domain/issue-id.ts"
import { reasonOf } from "../domain/reason.ts"
import { isEnded, type RuntimeHandle, type SessionRecord, worksAnIssue } from "../domain/session.ts"
import { taskTitle } from "../domain/task.ts"
import { Agent, type AgentContext, type AgentLaunch, type AgentShape } from "../plugins/agent/Agent.ts"
import { HostStart, type StartStep } from "../plugins/host-start.ts"
import { type Liveness, Runtime, type RuntimeShape } from "../plugins/runtime/Runtime.ts"
import { InvalidIssueId, type Issue, Tracker } from "../plugins/tracker/Tracker.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { findProgram, programOf } from "../process/program.ts"
import { buildWorkerPrompt } from "../prompts/worker.ts"
import { EventLog } from "../store/EventLog.ts"
import { writeFileAtomic } from "../store/files.ts"
import { type StorePaths, storePaths } from "../store/paths.ts"
import { processStartTime } from "../store/process-liveness.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { agentEnvironment } from "./agent-env.ts"
import { makeAgentFiles, pathsOn, promptCopies } from "./agent-files.ts"
import { sessionBranch } from "./branch-name.ts"
import { EmptyTask, IssueClosed, IssueHasSession, SpawnFailed } from "./errors.ts"
import type { Spawned, SpawnTarget } from "./SessionOps.ts"
import { MAX_TASK_BRANCH_TRIES, taskBranchCandidates, taskSlug } from "./task.ts"
import { removeWorkspaceSafely } from "./teardown.ts"

export const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const sessionNumber = (sessionId: string) => Number(sessionId.split("-").at(-1))
/** An agent may be up at once: the first looks for its ready signal come 10, 20, 40, 80 ms apart, then every 100 ms. */
const readyPollDelay = (poll: number) => Math.min(10 * 2 ** poll, 100)
const READY_WAIT_MS = 60_000
/** How long an agent with no ready signal must stay up before its spawn is reported. */
const START_WATCH = Duration.millis(150)

/** A start on a host's steps, as a spawn's failure names them. */
const START_STEPS: Record<StartStep, string> = {
  workspace: "creating the workspace",
  files: "preparing the agent",
  terminal: "starting the terminal session",
  start: "starting the agent"
}

/** The last lines an agent printed, for a report: blank lines and tmux's own "Pane is dead" line left out. */
export const lastPrintedLines = (screen: string, count = 5): ReadonlyArray<string> =>
  screen.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "" && !/^Pane is dead\b/.test(line)).slice(-count)

const howEnded = (liveness: Liveness) =>
  liveness._tag === "Gone"
    ? "its terminal session disappeared"
    : `the agent exited${
      liveness._tag === "Exited" && liveness.signal !== undefined
        ? ` on signal ${liveness.signal}`
        : liveness._tag === "Exited" && liveness.exitCode !== undefined
        ? ` with status ${liveness.exitCode}`
        : ""
    }`

const EMPTY_SCREEN_RETRY = "100 millis"
const EMPTY_SCREEN_RETRIES = 5

/** Why a start failed: how the agent ended and, quoted, what it printed last (the reason it gave, if any). */
export const agentEndedReason = (liveness: Liveness, printed: ReadonlyArray<string>, when: string): string => {
  const how = howEnded(liveness)
  return printed.length === 0 ? `${how} ${when}, printing nothing` : `${how} ${when}; it printed:\n${printed.map((line) => `  > ${line}`).join("\n")}`
}

/** The reason an agent that is no longer alive gave, read off its screen (a pane that died keeps it). */
const endedReason = (runtime: RuntimeShape, handle: RuntimeHandle, liveness: Liveness, when: string) =>
  runtime.capture(handle, 200).pipe(
    Effect.map(lastPrintedLines),
    // tmux may mark a pane dead (its SIGCHLD) before it has read the last output from the pty: an empty screen is
    // read again a few times before the agent is said to have printed nothing.
    Effect.repeat({ while: (printed) => printed.length === 0, schedule: Schedule.spaced(EMPTY_SCREEN_RETRY), times: EMPTY_SCREEN_RETRIES }),
    Effect.map((printed) => agentEndedReason(liveness, printed, when)),
    Effect.catch((error) => Effect.succeed(`${howEnded(liveness)} ${when}; its screen could not be read: ${error.message}`))
  )

/** Waits until the agent shows it is ready for input (60 s at most); fails if it exits or asks a setup question first. */
export const waitUntilReady = Effect.fnUntraced(
  function*(runtime: RuntimeShape, agent: Pick<AgentShape, "isReadyForInput" | "startBlocker">, handle: RuntimeHandle) {
    for (let poll = 0, waited = 0; waited < READY_WAIT_MS; poll++) {
      const screen = yield* runtime.capture(handle)
      if (agent.isReadyForInput(screen)) return
      const blocker = agent.startBlocker?.(screen)
      if (blocker !== undefined) return yield* Effect.fail(blocker)
      const liveness = (yield* runtime.probe([handle])).get(handle.id) ?? { _tag: "Gone" }
      if (liveness._tag !== "Alive") return yield* Effect.fail(yield* endedReason(runtime, handle, liveness, "before it was ready"))
      yield* Effect.sleep(readyPollDelay(poll))
      waited += readyPollDelay(poll)
    }
    return yield* Effect.fail("the agent did not show its input prompt within 60 s")
  }
)

/**
 * For an agent with no ready signal of its own: looks again once its first moments are over, so one that exits at
 * once (a bad flag, a missing file) fails the spawn with what it printed instead of being reported as running.
 */
export const watchStart = Effect.fnUntraced(function*(runtime: RuntimeShape, handle: RuntimeHandle) {
  yield* Effect.sleep(START_WATCH)
  const liveness = (yield* runtime.probe([handle])).get(handle.id) ?? { _tag: "Gone" }
  if (liveness._tag !== "Alive") return yield* Effect.fail(yield* endedReason(runtime, handle, liveness, "as it started"))
})

/** Fails when the agent's program is not installed, before a spawn or restore makes anything. */
export const checkAgentProgram = (agent: Pick<AgentShape, "commandLine">, project: ProjectConfig): Effect.Effect<void, string> => {
  const found = findProgram(programOf(agent.commandLine ?? ""), project.agentConfig.env?.PATH ?? process.env.PATH)
  return found._tag === "Missing"
    ? Effect.fail(
      `${found.program} is ${
        found.reason === "not found on PATH" ? "not installed (not found on PATH)" : `not there (${found.reason})`
      }; install it, or set agentConfig.command to its full path`
    )
    : Effect.void
}

/** Everything an agent is told about its session, for launching it and for resuming it later. */
export const agentContext = (
  store: { readonly paths: StorePaths },
  project: ProjectConfig,
  record: SessionRecord,
  task: string
): AgentContext => ({
  sessionId: record.sessionId,
  project,
  issueId: record.issueId,
  branch: record.branch,
  workspacePath: record.workspacePath,
  promptFile: store.paths.prompt(project.id, record.sessionId),
  systemPromptFile: store.paths.systemPrompt(project.id, record.sessionId),
  task,
  activityFile: store.paths.activity(project.id, record.sessionId),
  conversationId: record.agent.conversationId ?? record.sessionId
})

/** The `session.spawned` event of a whole session. */
export const spawnedEvent = (record: SessionRecord): NewEvent => ({
  type: "session.spawned",
  sessionId: record.sessionId,
  projectId: record.projectId,
  issueId: record.issueId,
  data: {
    branch: record.branch,
    workspacePath: record.workspacePath,
    agent: record.agent.plugin,
    runtime: record.runtime?.plugin,
    ...(record.task !== undefined ? { task: record.task.title } : {})
  }
})

/** What a spawn is for, checked: an issue's id, or a task's text with its slug (the branch is chosen later). */
type Work =
  | { readonly _tag: "Issue"; readonly issueRef: string; readonly label: string }
  | { readonly _tag: "Task"; readonly text: string; readonly label: string }

const workOf = (target: SpawnTarget): Work =>
  target._tag === "Issue"
    ? { _tag: "Issue", issueRef: target.issue, label: normalIssueId(target.issue) }
    : { _tag: "Task", text: target.task.trim(), label: taskSlug(target.task) }

/** Why a claim failed: the entry was taken meanwhile, or the queue could not be written. */
export interface ClaimError {
  readonly _tag: "EntryTaken" | "StoreError" | "LockTimeout"
  readonly message: string
}

export interface SpawnOptions {
  /** The config file the spawn runs under, remembered in the record. */
  readonly configPath?: string | undefined
  /** The host it runs on (the plugins given are that host's); absent: local. */
  readonly host?: string | undefined
  /** orch's data dir on that host as an absolute path, when the placement's reading named it (saves asking). */
  readonly hostDataDir?: string | undefined
  /** The project's origin, when placement read it (saves asking again). */
  readonly hostOrigin?: string | undefined
  /**
   * Called with the session id once it is reserved, before anything is made: admission marks its queue entry there,
   * so a crash from then on leaves the entry naming the session (src/sessions/queue-recovery.ts). Its failure fails
   * the spawn.
   */
  readonly claim?: ((sessionId: string) => Effect.Effect<void, ClaimError>) | undefined
  /** An issue its tracker says is over (closed, done) is not started (IssueClosed): queued work, not a person's spawn. */
  readonly refuseClosed?: boolean | undefined
}

export const spawnSession = Effect.fn("Sessions.spawn")(function*(project: ProjectConfig, target: SpawnTarget, options: SpawnOptions = {}) {
  const store = yield* SessionStore
  const events = yield* EventLog
  const runtime = yield* Runtime
  const agent = yield* Agent
  const workspace = yield* Workspace
  const tracker = yield* Tracker
  const warnings: Array<string> = []
  const work = workOf(target)

  if (work._tag === "Issue" && !isIssueId(work.issueRef)) return yield* new InvalidIssueId({ issueId: work.issueRef, expected: ISSUE_ID_EXPECTED })
  if (work._tag === "Task" && work.text === "") return yield* new EmptyTask({})
  let issueId = work.label
  const remote = options.host !== undefined && options.host !== "local"
  const failed = (step: string) => (error: { readonly message: string; readonly branchUnusable?: boolean } | string) =>
    new SpawnFailed({
      project: project.key,
      issueId,
      ...(work._tag === "Task" ? { task: true } : {}),
      step,
      reason: typeof error === "string" ? error : error.message,
      ...(remote ? { host: options.host! } : {}),
      ...(typeof error !== "string" && error.branchUnusable === true ? { branchUnusable: true } : {})
    })
  /** What undoing a failed spawn could not undo; its SpawnFailed says so. */
  const leftBehind: Array<string> = []
  const undo = <E>(what: string, effect: Effect.Effect<void, E>) =>
    effect.pipe(Effect.catchCause((cause) => Effect.sync(() => void leftBehind.push(`could not ${what}: ${reasonOf(cause)}`))))
  const onHost = remote ? Option.getOrUndefined(yield* Effect.serviceOption(HostStart)) : undefined
  // On another host the agent's program is looked for there, when it starts (watchStart reports what it printed).
  if (!remote) yield* checkAgentProgram(agent, project).pipe(Effect.mapError(failed("checking the agent")))
  // The issue is looked up while the workspace is made here (both wait on the network; a start on a host waits for
  // it: its one script writes the prompt); a spawn for an issue that does not exist is undone like any other
  // failure. A task has nothing to look up.
  let unavailable = false
  const lookup = work._tag === "Task" ? Effect.succeed(undefined) : tracker.getIssue(work.label).pipe(
    Effect.catchTag("TrackerUnavailable", (error) =>
      Effect.sync(() => {
        unavailable = true
        warnings.push(`${error.message}; spawning with the issue id alone`)
        return undefined
      }))
  )
  /**
   * A task's branch: `feat/<slug>`, or `-2`, `-3`… when a branch or another session already has it. On a host the
   * start itself refuses a branch its clone or origin has (BranchTaken, then the next is tried): no round trip first.
   */
  const taskBranch = (slug: string, taken: ReadonlySet<string>) =>
    Effect.gen(function*() {
      const { records } = yield* store.list
      const inUse = new Set(records.filter((r) => r.projectId === project.id).map((r) => r.branch))
      for (const branch of taskBranchCandidates(slug)) {
        if (inUse.has(branch) || taken.has(branch)) continue
        if (onHost !== undefined || !(yield* workspace.hasBranch(project, branch))) return branch
      }
      return yield* Effect.fail(`every branch from feat/${slug} to feat/${slug}-${MAX_TASK_BRANCH_TRIES} is taken; say the task in other words`)
    }).pipe(Effect.mapError(failed("choosing a branch")))

  const refuseIfClosed = (issue: Issue | undefined) =>
    options.refuseClosed === true && issue?.state?.completed === true
      ? Effect.fail(new IssueClosed({ issueId, state: issue.state.name }))
      : Effect.void
  /**
   * Of two spawns of one issue that raced past the check before them (two processes, or a person's and admission's),
   * the one with the lower session number goes on; the other fails and undoes itself. Its record is written first,
   * so each of the two sees the other.
   */
  const firstForIssue = (mine: SessionRecord) =>
    Effect.flatMap(store.list, ({ records }) => {
      const rival = records.find((r) =>
        r.sessionId !== mine.sessionId && r.projectId === mine.projectId && r.issueId === mine.issueId && worksAnIssue(r) && !isEnded(r.status) &&
        sessionNumber(r.sessionId) < sessionNumber(mine.sessionId)
      )
      return rival === undefined
        ? Effect.void
        : Effect.fail(new IssueHasSession({ issueId: mine.issueId, sessionId: rival.sessionId, ...(rival.status === "spawning" ? { spawning: true } : {}) }))
    })

  /** Whether undoing this spawn saved what its agent had written (to the rescue ref of its session id). */
  let rescued = false
  const spawned = yield* Effect.scoped(Effect.gen(function*() {
    const issueFiber = yield* Effect.forkScoped(lookup)
    const originFiber = onHost === undefined || options.hostOrigin !== undefined ? undefined : yield* Effect.forkScoped(onHost.origin(project))
    // A tracker that names branches is waited for: the branch is made next.
    const early = work._tag === "Issue" && tracker.namesBranches === true ? yield* Fiber.join(issueFiber) : undefined
    // Undone last: an id whose undo saved work to its rescue ref is retired, not released (that ref stays this spawn's).
    const sessionId = yield* Effect.acquireRelease(
      store.reserve(project.id, project.sessionPrefix).pipe(Effect.mapError(failed("reserving a session id"))),
      (id, exit) =>
        Exit.isFailure(exit)
          ? undo(`release the session id ${id}`, Effect.suspend(() => (rescued ? store.remove(project.id, id) : store.release(project.id, id))))
          : Effect.void
    )
    if (options.claim !== undefined) yield* options.claim(sessionId)
    const takenOnHost = new Set<string>()
    const branch = work._tag === "Task" ? yield* taskBranch(work.label, takenOnHost) : sessionBranch(issueId, early)
    if (work._tag === "Task") issueId = branch.slice("feat/".length)
    const createdAt = yield* nowIso
    // Who spawns it: while this process runs the spawn is under way; once it is gone, lists show it interrupted.
    const startTime = yield* Effect.sync(() => processStartTime(process.pid))
    const spawner = startTime === undefined ? {} : { startTime }
    // The session's files where it runs: on a host, under its data dir there (named by the placement's reading).
    const there = onHost === undefined
      ? store.paths
      : options.hostDataDir !== undefined
      ? storePaths(options.hostDataDir)
      : yield* pathsOn(store.paths, workspace).pipe(Effect.mapError(failed("creating the workspace")))
    let record: SessionRecord = {
      sessionId,
      projectId: project.id,
      issueId,
      ...(work._tag === "Task" ? { task: { title: taskTitle(work.text) } } : {}),
      ...(options.configPath !== undefined ? { configPath: options.configPath } : {}),
      project: {
        key: project.key,
        path: project.path,
        repo: project.repo,
        defaultBranch: project.defaultBranch,
        runtime: project.runtime,
        workspace: project.workspace
      },
      ...(remote ? { host: options.host! } : {}),
      status: "spawning",
      activity: "unknown",
      branch,
      workspacePath: there.worktree(project.id, sessionId),
      runtime: null,
      agent: { plugin: agent.name, conversationId: randomUUID() },
      pr: null,
      createdAt,
      updatedAt: createdAt,
      spawn: { pid: process.pid, ...spawner, startedAt: createdAt }
    }
    const save = (next: SessionRecord, options?: { readonly durable?: boolean }) =>
      Effect.suspend(() => {
        record = next
        return store.write(next, options)
      }).pipe(Effect.mapError(failed("writing the session record")))
    const journal = (entry: Partial<NonNullable<SessionRecord["spawn"]>>) => Effect.suspend(() => save({ ...record, spawn: { ...record.spawn!, ...entry } }))
    // Anything the agent already wrote there (a spawn cancelled once it ran) is saved to the rescue ref first.
    const undoWorkspace = (ws: { readonly path: string; readonly branch: string; readonly createdBranch: boolean }) =>
      undo(
        `remove the worktree ${ws.path}${ws.createdBranch ? ` and its branch ${ws.branch}` : ""}`,
        removeWorkspaceSafely(project, record, ws.path, ws.branch, { deleteBranch: ws.createdBranch }).pipe(
          Effect.map((removed) => void (rescued ||= removed.rescuedTo !== undefined)),
          Effect.provideService(Workspace, workspace),
          Effect.provideService(EventLog, events)
        )
      )
    const undoTerminal = (handle: RuntimeHandle) => undo(`end the terminal session ${handle.id}`, runtime.destroy(handle))

    /** The prompt files here, and the agent's launch as the machine it runs on sees it. */
    const prepareAgent = Effect.fnUntraced(function*(issue: Issue | undefined) {
      const rulesFile = project.agentRulesFile !== undefined && existsSync(project.agentRulesFile)
        ? readFileSync(project.agentRulesFile, "utf8")
        : undefined
      if (project.agentRulesFile !== undefined && rulesFile === undefined) warnings.push(`agentRulesFile ${project.agentRulesFile} does not exist`)
      const prompt = buildWorkerPrompt({
        project,
        sessionId,
        issueId,
        branch: record.branch,
        issue,
        untracked: !unavailable,
        ...(work._tag === "Task" ? { task: work.text } : {}),
        rulesFile
      })
      // The prompt files are kept here in any case; a session on a host gets copies there (agent-files.ts).
      yield* writeFileAtomic(store.paths.prompt(project.id, sessionId), prompt.full).pipe(Effect.mapError(failed("writing the prompt")))
      yield* writeFileAtomic(store.paths.systemPrompt(project.id, sessionId), prompt.system).pipe(Effect.mapError(failed("writing the prompt")))
      const context = agentContext({ paths: there }, project, record, prompt.task)
      const launch = yield* agent.launch(context).pipe(Effect.mapError(failed("preparing the agent")))
      const spec = {
        sessionId,
        workingDir: record.workspacePath,
        command: launch.command,
        ...agentEnvironment(project, context, launch.env, remote ? {} : process.env)
      }
      return { launch, spec }
    })

    // Not yet durable: nothing is made before the journal's first entry, which is (a power cut before it loses a
    // record of nothing; a kill -9 loses nothing written).
    yield* save(record, { durable: false })
    if (work._tag === "Issue") yield* firstForIssue(record)
    let handle: RuntimeHandle
    let launch: AgentLaunch
    let watching: Fiber.Fiber<void, SpawnFailed> | undefined
    if (onHost === undefined) {
      // The workspace is made while the issue is looked up and the prompt written (none orders the others). Whether
      // the branch is made is journaled from the workspace's own look, before it makes anything (one look). Its making
      // (git, the project's postCreate: an install may take minutes) can be cut short: a spawn stopped there (Ctrl-C,
      // a client gone) undoes what it had made of the workspace at once, instead of waiting it out.
      let planned: { readonly path: string; readonly branch: string; readonly createdBranch: boolean } | undefined
      const [created, prepared] = yield* Effect.all([
        Effect.acquireRelease(
          Effect.interruptible(workspace.create(
            { project, sessionId, branch: record.branch, path: record.workspacePath },
            (plan) =>
              Effect.suspend(() => {
                planned = { path: record.workspacePath, branch: record.branch, createdBranch: plan.createdBranch }
                // The terminal to come is journaled with the worktree: no write of its own between the two on the way
                // (undoing a spawn ends a journaled terminal only if it exists).
                return journal({
                  workspace: record.workspacePath,
                  createdBranch: plan.createdBranch,
                  runtime: { plugin: runtime.name, id: sessionId, data: {} }
                })
              })
          )).pipe(
            Effect.mapError((error) => (error._tag === "SpawnFailed" ? error : failed("creating the workspace")(error))),
            Effect.onInterrupt(() => (planned === undefined ? Effect.void : undoWorkspace(planned)))
          ),
          (ws, exit) => (Exit.isFailure(exit) ? undoWorkspace(ws) : Effect.void)
        ),
        Fiber.join(issueFiber).pipe(
          Effect.tap(refuseIfClosed),
          Effect.tap((issue) =>
            Effect.sync(() => void (issue !== undefined && (record = { ...record, issue: { title: issue.title, ...(issue.url ? { url: issue.url } : {}) } })))
          ),
          Effect.flatMap(prepareAgent)
        )
      ], { concurrency: 2 })
      warnings.push(...created.warnings)
      if (created.createdBranch !== record.spawn?.createdBranch) yield* journal({ createdBranch: created.createdBranch })
      launch = prepared.launch
      yield* makeAgentFiles(workspace, store.paths, there, { projectId: project.id, sessionId }, launch.files ?? []).pipe(
        Effect.mapError(failed("preparing the agent"))
      )
      handle = yield* Effect.acquireRelease(
        runtime.create(prepared.spec).pipe(Effect.mapError(failed("starting the terminal session"))),
        (h, exit) => (Exit.isFailure(exit) ? undoTerminal(h) : Effect.void)
      )
      // The look at an agent with no ready signal overlaps the slow half of the record's last write below (its
      // fsync); the record says the session works only once the look saw the agent alive.
      if (launch.initialMessage === undefined) {
        watching = yield* Effect.forkScoped(watchStart(runtime, handle).pipe(Effect.mapError(failed("starting the agent"))))
      }
    } else {
      // On a host, from the worktree to the agent started is one round trip (src/plugins/host-start.ts). The branch
      // was not asked about first: until the host says it made it, the journal keeps it (never deletes work).
      const issue = yield* Fiber.join(issueFiber).pipe(Effect.tap(refuseIfClosed))
      if (issue !== undefined) record = { ...record, issue: { title: issue.title, ...(issue.url ? { url: issue.url } : {}) } }
      yield* journal({ workspace: record.workspacePath, createdBranch: false, runtime: onHost.handleOf(sessionId) })
      const origin = originFiber === undefined
        ? options.hostOrigin!
        : yield* Fiber.join(originFiber).pipe(Effect.mapError((error) => failed("creating the workspace")(error.message)))
      const started = yield* Effect.gen(function*() {
        for (;;) {
          const prepared = yield* prepareAgent(issue)
          const plan = {
            workspace: { project, sessionId, branch: record.branch, path: record.workspacePath },
            origin,
            newBranch: work._tag === "Task",
            edits: [...promptCopies(store.paths, there, project.id, sessionId), ...(prepared.launch.files ?? [])],
            launch: prepared.spec,
            ...(prepared.launch.initialMessage === undefined ? { watchAfterMs: Duration.toMillis(START_WATCH) } : {})
          }
          const attempt = yield* onHost.start(plan).pipe(
            Effect.map((started) => ({ started, launch: prepared.launch })),
            Effect.catchTag("BranchTaken", (taken) => Effect.succeed({ taken: taken.branch }))
          )
          if ("started" in attempt) return attempt
          takenOnHost.add(attempt.taken)
          const next = yield* taskBranch(work.label, takenOnHost)
          issueId = next.slice("feat/".length)
          yield* save({ ...record, issueId, branch: next })
        }
      }).pipe(
        Effect.catchTag("HostStartFailed", (error) =>
          Effect.gen(function*() {
            if (error.made.session !== undefined) yield* undoTerminal(error.made.session)
            if (error.made.worktree !== undefined) yield* undoWorkspace({ ...error.made.worktree, branch: record.branch })
            return yield* failed(START_STEPS[error.step])(error.message)
          }))
      )
      launch = started.launch
      handle = started.started.handle
      yield* Effect.addFinalizer((exit) =>
        Exit.isFailure(exit)
          ? undoTerminal(handle).pipe(Effect.andThen(undoWorkspace({ ...started.started, branch: record.branch })))
          : Effect.void
      )
      yield* journal({ createdBranch: started.started.createdBranch, runtime: handle })
      if (started.started.path !== record.workspacePath) {
        yield* journal({ workspace: started.started.path }).pipe(Effect.andThen(save({ ...record, workspacePath: started.started.path })))
      }
      const watched = started.started.watched
      if (watched !== undefined && watched.liveness._tag !== "Alive") {
        const printed = lastPrintedLines(watched.screen)
        return yield* Effect.fail(
          failed("starting the agent")(
            printed.length > 0
              ? agentEndedReason(watched.liveness, printed, "as it started")
              : yield* endedReason(runtime, handle, watched.liveness, "as it started")
          )
        )
      }
    }
    if (launch.initialMessage !== undefined) {
      yield* waitUntilReady(runtime, agent, handle).pipe(Effect.mapError(failed("waiting for the agent")))
      yield* runtime.send(handle, launch.initialMessage).pipe(Effect.mapError(failed("giving the agent its task")))
    }
    // Whole. The journal stays, saying where in the event log `session.spawned` belongs, until that is written.
    const announce = yield* events.size
    const now = yield* nowIso
    // Active since now: the time agent-stuck counts from when the screen alone says what the agent does.
    const whole: SessionRecord = {
      ...record,
      status: "working",
      activity: "active",
      activitySince: now,
      runtime: handle,
      updatedAt: now,
      spawn: { ...record.spawn!, announce }
    }
    const staged = yield* store.stage(whole).pipe(Effect.mapError(failed("writing the session record")))
    if (watching !== undefined) yield* Fiber.join(watching).pipe(Effect.onError(() => staged.discard))
    yield* staged.commit.pipe(Effect.mapError(failed("writing the session record")))
    record = whole
    return record
  })).pipe(
    Effect.mapError((error) => (error._tag === "SpawnFailed" && leftBehind.length > 0 ?
      new SpawnFailed({
        project: error.project,
        issueId: error.issueId,
        ...(error.task !== undefined ? { task: error.task } : {}),
        step: error.step,
        reason: error.reason,
        ...(error.host !== undefined ? { host: error.host } : {}),
        ...(error.branchUnusable !== undefined ? { branchUnusable: error.branchUnusable } : {}),
        leftBehind: [...leftBehind]
      }) :
      error)
    ),
    Effect.tapError((error) =>
      error._tag === "SpawnFailed" || leftBehind.length === 0 ? Effect.void : Effect.logWarning(`undoing the failed spawn, orch ${leftBehind.join("; and ")}`)
    )
  )

  // The session runs: an event that cannot be recorded is told, not a failure of the spawn.
  yield* events.append(spawnedEvent(spawned)).pipe(
    Effect.catch((error) => Effect.sync(() => void warnings.push(`the session.spawned event could not be recorded: ${error.message}`)))
  )
  const { spawn: _journal, ...announced } = spawned
  yield* store.write(announced, { durable: false }).pipe(
    Effect.catch((error) => Effect.logWarning(`${spawned.sessionId}'s record keeps its spawn journal (${error.message}); the next command clears it`))
  )
  return { record: announced, warnings } satisfies Spawned
}, (effect, project, target, _options) => {
  // A spawn that failed, or was cancelled (its orch stopped, a client went away) and undid what it made, says so.
  const told = (message: string) =>
    EventLog.use((events) => {
      const work = workOf(target)
      return events.append({
        type: "session.spawn_failed",
        projectId: project.id,
        issueId: work.label,
        message,
        ...(work._tag === "Task" ? { data: { task: taskTitle(work.text) } } : {})
      })
    }).pipe(Effect.catch((appendError) => Effect.logWarning(`the session.spawn_failed event could not be recorded: ${appendError.message}`)))
  return effect.pipe(
    Effect.tapError((error) => told(error.message)),
    Effect.onInterrupt(() =>
      told("the spawn was cancelled (its orch process or the supervisor stopped, or whoever asked went away); what it had made was undone")
    )
  )
})
