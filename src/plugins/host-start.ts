/**
 * A session's start on a host as one script, one round trip: the worktree (as workspace/remote-workspace.ts makes
 * it), the agent's files (workspace/remote-files.ts), the terminal session (runtime/remote-tmux.ts) and, for an agent
 * with no ready signal of its own, a look at it once its first moments are over. Only when a file the agent's edits start from is in the
 * new worktree already (a settings file the repository keeps) does the start take a second round trip: the first
 * reads it and stops before the files; the second writes them and starts the agent. The script marks each step it
 * reaches and what it made, so a failure names its step and the spawn undoes just what exists.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProjectConfig } from "../config/schema.ts"
import { RuntimeHandle } from "../domain/session.ts"
import type { HostError } from "../hosts/errors.ts"
import type { HostConnectionsShape } from "../hosts/HostConnections.ts"
import { shellQuote } from "../process/shell-quote.ts"
import { PANE_FORMAT, panesOf, REAP_FIRST } from "./runtime/multiplexer.ts"
import { envFileName, environmentInput, newSessionLines, notMadeReason, remoteHandle, tmuxScriptHead } from "./runtime/remote-tmux.ts"
import type { LaunchSpec, Liveness } from "./runtime/Runtime.ts"
import { type FileEdit, filesToRead, resolveEdits } from "./workspace/file-edits.ts"
import { parseRead, readScript, writeScript } from "./workspace/remote-files.ts"
import { BRANCH_TAKEN, createScript, originOf, parseCreated, withGitHint } from "./workspace/remote-workspace.ts"
import type { WorkspaceSpec } from "./workspace/Workspace.ts"

/** The exit of a first script that found a file the edits start from: its content is in the answer. */
const NEEDS_READ = 94

export type StartStep = "workspace" | "files" | "terminal" | "start"

export interface HostStartPlan {
  /** The worktree to make (its path as the host's data dir gives it). */
  readonly workspace: WorkspaceSpec
  /** Where the host gets the code (`origin`, as the local checkout names it). */
  readonly origin: string
  /** A task's branch, chosen as one nobody has: the start is refused (BranchTaken) when the host finds it exists. */
  readonly newBranch: boolean
  readonly edits: ReadonlyArray<FileEdit>
  readonly launch: LaunchSpec
  /** Look at the agent this long after it started (for an agent with no ready signal); absent: do not look. */
  readonly watchAfterMs?: number
}

export interface HostStarted {
  readonly path: string
  readonly createdBranch: boolean
  readonly handle: RuntimeHandle
  /** The agent as the look found it, with its screen when it is no longer alive. */
  readonly watched?: { readonly liveness: Liveness; readonly screen: string }
}

/** What a failed start made (or may have: its answer never came) and left for the spawn to undo. */
const StartMade = Schema.Struct({
  worktree: Schema.optionalKey(Schema.Struct({ path: Schema.String, createdBranch: Schema.Boolean })),
  session: Schema.optionalKey(RuntimeHandle)
})
export type StartMade = typeof StartMade.Type

export class HostStartFailed extends Schema.TaggedError<HostStartFailed>()("HostStartFailed", {
  host: Schema.String,
  step: Schema.Literals(["workspace", "files", "terminal", "start"]),
  reason: Schema.String,
  made: StartMade
}) {
  override get message() {
    return `on host ${this.host}: ${this.reason}`
  }
}

export class BranchTaken extends Schema.TaggedError<BranchTaken>()("BranchTaken", { host: Schema.String, branch: Schema.String }) {
  override get message() {
    return `the branch ${this.branch} exists on host ${this.host}'s clone or on origin`
  }
}

const q = shellQuote

/** The lines between the marker lines `@from` and `@to` (to the end when `to` is absent), or undefined without `@from`. */
const between = (stdout: string, from: string, to?: string): string | undefined => {
  const start = stdout.indexOf(`@${from}\n`)
  if (start < 0) return undefined
  const body = stdout.slice(start + from.length + 2)
  const end = to === undefined ? -1 : body.indexOf(`@${to}\n`)
  return end < 0 ? body : body.slice(0, end)
}

/** The lines that start the terminal session and, when asked, look at it `watchAfterMs` later. */
const terminalLines = (dataDir: string | undefined, plan: HostStartPlan, envName: string) => {
  const target = `=${plan.launch.sessionId}:`
  const tmux = (args: string) => `tmux -u -S "$sock" ${args}`
  // A pane's line (PANE_FORMAT) starts "<session> 1 " once it is dead: only then is its screen worth the bytes. tmux
  // reaps first (REAP_FIRST): an agent that exited at once is told with its exit status, which tmux may have lost.
  const watch = plan.watchAfterMs === undefined ? "" : `echo "@step start"
sleep ${(plan.watchAfterMs / 1000).toFixed(3)}
panes=$(${tmux(`${REAP_FIRST.map(q).join(" ")} list-panes -a -F ${q(PANE_FORMAT)}`)} 2>/dev/null)
printf '@panes\n%s\n@screen\n' "$panes"
nl='
'
case "$nl$panes" in *"$nl"${q(`${plan.launch.sessionId} 1 `)}*) ${tmux(`capture-pane -p -J -t ${q(target)} -S -200`)} 2>/dev/null;; esac
`
  return `echo "@step terminal"
${tmuxScriptHead(dataDir)}echo @made-as
${newSessionLines(plan.launch, envName)}echo @session
${tmux(`has-session -t ${q(`=${plan.launch.sessionId}`)}`)} 2>/dev/null || rm -f "$env_file"
${watch}echo @end
`
}

export interface HostStartShape {
  readonly host: string
  /** The handle a session started there will have (for the spawn's journal before it starts). */
  readonly handleOf: (sessionId: string) => RuntimeHandle
  /** The project's origin, for the plan (a local git call: the spawn asks it while it prepares the rest). */
  readonly origin: (project: ProjectConfig) => Effect.Effect<string, HostStartFailed>
  readonly start: (plan: HostStartPlan) => Effect.Effect<HostStarted, HostStartFailed | BranchTaken>
}

export class HostStart extends Context.Service<HostStart, HostStartShape>()("orch/hosts/HostStart") {}

/** `configured`: the host's `dataDir` as the config gives it (absent: `~/.orchestrator` there). */
export const makeHostStart = (connections: HostConnectionsShape, host: string, configured?: string): HostStartShape => {
  const dataDir = configured ?? "~/.orchestrator"
  // The handle names the data dir as the host's tmux does (remote-tmux.ts): only when configured.
  const tmuxDataDir = configured
  const failure = (step: StartStep, reason: string, made: StartMade = {}) => new HostStartFailed({ host, step, reason, made })
  /** A script whose answer never came may have made anything up to `mayHaveMade`: the spawn undoes it all (each undo is idempotent). */
  const run = (script: string, stdin: string, step: StartStep, mayHaveMade: StartMade) =>
    connections.run(host, script, { stdin, timeout: "5 minutes" }).pipe(Effect.mapError((error: HostError) => failure(step, error.message, mayHaveMade)))

  /** What the answer says was made, and how far the script went. */
  const progress = (stdout: string, worktree: StartMade["worktree"], sessionId: string) => {
    const created = parseCreated(stdout)
    const made: StartMade = {
      ...(created !== undefined ? { worktree: created } : worktree !== undefined ? { worktree } : {}),
      ...(/^@session$/m.test(stdout) ? { session: remoteHandle(host, sessionId, tmuxDataDir) } : {})
    }
    const steps = [...stdout.matchAll(/^@step (files|terminal|start)$/gm)].map((match) => match[1] as StartStep)
    return { made, step: steps.at(-1) ?? ("workspace" as StartStep) }
  }

  const start = Effect.fn("HostStart.start")(function*(plan: HostStartPlan) {
    const reads = filesToRead(plan.edits)
    const envName = envFileName()
    const stdin = environmentInput(plan.launch)
    const writes = (contents: (path: string) => string | undefined) => writeScript(resolveEdits(plan.edits, contents))
    const first = `${createScript(dataDir, plan.workspace, plan.origin, { newBranch: plan.newBranch })}echo "@step files"
echo @reads
${readScript(reads)}${reads.length > 0 ? `if ${reads.map((path) => `[ -f ${q(path)} ]`).join(" || ")}; then exit ${NEEDS_READ}; fi\n` : ""}${
      writes(() => undefined)
    }${terminalLines(tmuxDataDir, plan, envName)}`
    const session = remoteHandle(host, plan.launch.sessionId, tmuxDataDir)
    const everything = { worktree: { path: plan.workspace.path, createdBranch: false }, session }
    let result = yield* run(first, stdin, "workspace", everything)
    let answer = progress(result.stdout, undefined, plan.launch.sessionId)
    if (result.exitCode === BRANCH_TAKEN) return yield* new BranchTaken({ host, branch: plan.workspace.branch })
    if (result.exitCode === NEEDS_READ && answer.made.worktree !== undefined) {
      const current = parseRead(reads, between(result.stdout, "reads") ?? "")
      if (current === undefined) return yield* failure("files", "the host's answer was cut short", answer.made)
      const worktree = answer.made.worktree
      const second = `echo "@step files"\n${writes((path) => current.get(path))}${terminalLines(tmuxDataDir, plan, envName)}`
      result = yield* run(second, stdin, "files", { worktree, session })
      answer = progress(result.stdout, worktree, plan.launch.sessionId)
    }
    const { made, step } = answer
    if (result.exitCode !== 0) {
      return yield* failure(step, withGitHint(result.stderr.trim().split("\n").at(-1) || `the script exited ${result.exitCode}`), made)
    }
    if (made.worktree === undefined || made.session === undefined || !/^@end$/m.test(result.stdout)) {
      return yield* failure(step, "the host's answer was cut short", made)
    }
    const named = between(result.stdout, "made-as", "session")?.trim() ?? ""
    if (named !== plan.launch.sessionId) return yield* failure("terminal", notMadeReason(named), made)
    const panes = between(result.stdout, "panes", "screen")
    return {
      path: made.worktree.path,
      createdBranch: made.worktree.createdBranch,
      handle: made.session,
      ...(panes !== undefined
        ? { watched: { liveness: panesOf(panes).get(plan.launch.sessionId) ?? { _tag: "Gone" }, screen: between(result.stdout, "screen", "end") ?? "" } }
        : {})
    } satisfies HostStarted
  })

  const origin = (project: ProjectConfig) => originOf(connections, project).pipe(Effect.mapError((error) => failure("workspace", error.reason)))
  return { host, handleOf: (sessionId) => remoteHandle(host, sessionId, tmuxDataDir), origin, start }
}
