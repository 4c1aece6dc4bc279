/**
 * What `orch doctor` does (its command is in doctor.ts, so the command tree loads none of this): is this machine ready to run orch? git and tmux, the config, its hosts (each answers, with tmux
 * and git there), each configured agent's binary
 * and version, and for Claude Code the drift canary (its real screens and hooks, read by orch's detector);
 * `--notify` sends a test notification through the routing. Prints one line per check; exits 1 if any failed.
 */
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { ValidationIssue } from "../config/errors.ts"
import { Host } from "../config/host.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import { VERIFIED_CLAUDE_VERSION } from "../plugins/agent/claude-screen.ts"
import { VERIFIED_CODEX_VERSION } from "../plugins/agent/codex.ts"
import type { PluginIssues } from "../plugins/config-check.ts"
import { defaultTmuxSocket, socketDirProblem, socketDirState } from "../plugins/runtime/tmux-socket.ts"
import { exec } from "../process/exec.ts"
import { findProgram, type ProgramLookup, programOf } from "../process/program.ts"
import { dataDir, dataDirProblem } from "../store/paths.ts"
import { NODE_ENGINES } from "../version.ts"

export class DoctorFailed extends Schema.TaggedError<DoctorFailed>()("DoctorFailed", { failed: Schema.Int }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `${this.failed} check${this.failed === 1 ? "" : "s"} failed`
  }
}

type Level = "ok" | "warn" | "fail"
interface Line {
  readonly level: Level
  readonly what: string
  readonly detail: string
}

/** What each built-in agent runs by default, how to install it, and the version its behaviour was proven with (docs/agents.md). */
const AGENTS: Readonly<Record<string, { readonly binary: string; readonly install: string; readonly verified?: string }>> = {
  "coding-agent": { binary: "claude", install: "Claude Code (npm install -g @anthropic-ai/claude-code)", verified: VERIFIED_CLAUDE_VERSION },
  codex: { binary: "codex", install: "Codex (npm install -g @openai/codex)", verified: VERIFIED_CODEX_VERSION },
  aider: { binary: "aider", install: "aider (python -m pip install aider-install && aider-install)" }
}

/** A program that is not there, in one sentence with what to do. */
export const missingProgram = (lookup: Extract<ProgramLookup, { _tag: "Missing" }>, install: string, otherwise: string) =>
  lookup.program.includes("/")
    ? `${lookup.program} is not an executable file; ${otherwise}`
    : `${lookup.program} is not on PATH; install ${install}, ${otherwise}`

const version = (binary: string, args: ReadonlyArray<string>) =>
  exec(binary, args, { timeout: "20 seconds" }).pipe(
    Effect.map((r) => (r.exitCode === 0
      ? { ok: true as const, text: `${r.stdout}${r.stderr}`.trim().split("\n")[0]! }
      : { ok: false as const, text: r.stderr.trim() || `exit ${r.exitCode}` })
    ),
    Effect.catch((error) => Effect.succeed({ ok: false as const, text: error.reason }))
  )

/** The running Node against `engines` (">=22.19"): older ones fail, naming the version needed. */
export const nodeCheck = (running: string, engines: string): Line => {
  const needed = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim())
  if (needed === null) return { level: "ok", what: "node", detail: running }
  const want = needed.slice(1).map((part) => Number(part ?? 0))
  const have = running.replace(/^v/, "").split(".").map(Number)
  const older = want.findIndex((part, i) => (have[i] ?? 0) !== part)
  if (older === -1 || (have[older] ?? 0) > want[older]!) return { level: "ok", what: "node", detail: running }
  const version = needed.slice(1).filter((part) => part !== undefined).join(".")
  return { level: "fail", what: "node", detail: `${running} is older than orch supports (${engines}); install Node ${version} or newer and run orch with it` }
}

/** git's version line: older than 2.38 has no `merge-tree --write-tree`, which conflict prediction needs (a warning: the rest works). */
export const gitCheck = (text: string): Line => {
  const found = /(\d+)\.(\d+)/.exec(text)
  const older = found !== null && (Number(found[1]) < 2 || (Number(found[1]) === 2 && Number(found[2]) < 38))
  return older
    ? {
      level: "warn",
      what: "git",
      detail: `${text}: predicting conflicts between sessions needs git 2.38 or newer (merge-tree --write-tree); install a newer git for it`
    }
    : { level: "ok", what: "git", detail: text }
}

const TOOLS = [
  { name: "git", args: ["--version"], install: "git", otherwise: "then run orch doctor again" },
  { name: "tmux", args: ["-V"], install: "tmux", otherwise: "or set `runtime: process` for every project" }
] as const

/** The data directory: missing is fine (orch makes it), anything but a writable directory is not. */
const dataDirCheck = (root: string): Line => {
  const problem = dataDirProblem(root)
  if (problem !== undefined) return { level: "fail", what: "data", detail: problem }
  return { level: "ok", what: "data", detail: existsSync(root) ? root : `${root} (made at first use)` }
}

/** tmux's socket directory: missing is fine (orch creates it), unusable is not. */
const tmuxSocketCheck = (env: Readonly<Record<string, string | undefined>>): Line => {
  const state = socketDirState(defaultTmuxSocket(env))
  if (state._tag === "Ready") return { level: "ok", what: "tmux socket", detail: state.dir }
  return { level: state._tag === "Missing" ? "ok" : "fail", what: "tmux socket", detail: socketDirProblem(state) }
}

/** A config problem in a line: where in the file, what, and the `file:line:col` when known. */
const problemDetail = (issue: ValidationIssue) => `${issue.path}: ${issue.message}${issue.location !== undefined ? ` (${issue.location})` : ""}`

/** What a project's plugins are, in a line: `agent command, runtime multiplexer, …`. */
const pluginsOf = (project: ProjectConfig) =>
  [
    `agent ${project.agent}`,
    `runtime ${project.runtime}`,
    `workspace ${project.workspace}`,
    `tracker ${project.tracker.plugin}`,
    `scm ${project.scm?.plugin ?? "none"}`
  ].join(", ")

/**
 * The config's lines: the file (failing on a problem outside any project, a notifier's), then one line per project for
 * its plugins, or one per problem of them. Pure.
 */
export const configLines = (config: OrchestratorConfig, file: string, checked: PluginIssues): ReadonlyArray<Line> => {
  const ofProjects = new Set([...checked.byProject.values()].flat().map((issue) => issue.path))
  const others = checked.all.filter((issue) => !ofProjects.has(issue.path))
  const count = Object.keys(config.projects).length
  return [
    others.length === 0
      ? { level: "ok", what: "config", detail: `${file}: ${count} project${count === 1 ? "" : "s"}` }
      : { level: "fail", what: "config", detail: `${file}: ${problemDetail(others[0]!)}` },
    ...others.slice(1).map((issue): Line => ({ level: "fail", what: "config", detail: problemDetail(issue) })),
    ...Object.values(config.projects).flatMap((project): ReadonlyArray<Line> => {
      const what = `project ${project.key}`
      const problems = checked.byProject.get(project.key) ?? []
      return problems.length === 0
        ? [{ level: "ok", what, detail: pluginsOf(project) }]
        : problems.map((issue) => ({ level: "fail", what, detail: problemDetail(issue) }))
    })
  ]
}

/**
 * The supervisor, if one answers; otherwise whether its ports can be had. A port the running supervisor holds is
 * its own, so ports are only tried when none answers.
 */
const supervisorChecks = Effect.fnUntraced(function*(root: string, config: OrchestratorConfig) {
  const [{ connectSupervisor }, { canListen }] = yield* Effect.promise(() =>
    Promise.all([import("../ipc/liveness.ts"), import("../dashboard/listen-error.ts")])
  )
  const verdict = yield* Effect.scoped(connectSupervisor(root))
  if (verdict._tag === "Running") {
    const served = verdict.info.configPath
    return [
      {
        level: "ok",
        what: "supervisor",
        detail: `running (pid ${verdict.info.pid}), dashboard ${verdict.info.dashboardUrl.replace(/\?token=.*$/, "")}${
          served !== undefined ? `, serving ${served}` : ""
        }`
      } satisfies Line,
      // Commands that act go to it, whatever the config found here says.
      ...(served !== undefined && config.configPath !== undefined && served !== config.configPath
        ? [
          {
            level: "warn",
            what: "supervisor",
            detail:
              `it serves ${served}, not ${config.configPath} checked above: spawn, send, start and the other commands that act use ${served} (edit that file: it applies without a restart)`
          } satisfies Line
        ]
        : [])
    ]
  }
  if (verdict._tag === "Unresponsive") {
    return [
      {
        level: "fail",
        what: "supervisor",
        detail: `${verdict.pid === undefined ? "a process" : `pid ${verdict.pid}`} holds ${verdict.socket} but ${verdict.reason}`
      } satisfies Line
    ]
  }
  const lines: Array<Line> = [{
    level: "ok",
    what: "supervisor",
    detail: verdict.leftovers.file !== undefined || verdict.leftovers.socket
      ? "not running (a dead one left its files; the next orch start removes them)"
      : "not running"
  }]
  for (const [option, port] of [["port", config.port], ["terminalPort", config.terminalPort], ["directTerminalPort", config.directTerminalPort]] as const) {
    const problem = yield* canListen(config.host, port, option)
    lines.push(
      problem === undefined
        ? { level: "ok", what: option, detail: `${config.host}:${port} is free` }
        : { level: "fail", what: option, detail: `${config.host}:${port}: ${problem}` }
    )
  }
  return lines
})

/** Each project's agent program, installed and in what version; not for a project whose agent setting has a problem (its line says it). */
const agentChecks = Effect.fnUntraced(function*(config: OrchestratorConfig, canary: boolean, checked: PluginIssues) {
  const lines: Array<Line> = []
  const seen = new Set<string>()
  const agentBroken = (key: string) =>
    (checked.byProject.get(key) ?? []).some((issue) => issue.path === "defaults.agent" || issue.path.startsWith(`projects.${key}.agent`))
  for (const project of Object.values(config.projects).filter((p) => !agentBroken(p.key))) {
    const known = AGENTS[project.agent]
    const command = typeof project.agentConfig.command === "string" && project.agentConfig.command !== "" ? project.agentConfig.command : known?.binary
    if (command === undefined || seen.has(`${project.agent} ${command}`)) continue
    seen.add(`${project.agent} ${command}`)
    const what = `agent ${project.agent} (${command})`
    const lookup = findProgram(known === undefined ? programOf(command) : command, project.agentConfig.env?.PATH ?? process.env.PATH)
    if (lookup._tag === "Missing") {
      const install = known?.install ?? "it"
      const otherwise = known === undefined
        ? `or change agentConfig.command of project ${project.key}`
        : `or set agentConfig.command of project ${project.key} to its path`
      lines.push({ level: "fail", what, detail: missingProgram(lookup, install, otherwise) })
      continue
    }
    if (known === undefined) {
      // `command` and plugin-module agents: only that the program is there.
      lines.push({ level: "ok", what, detail: lookup._tag === "Found" ? lookup.path : "a shell command line (not looked up)" })
      continue
    }
    const installed = yield* version(command, ["--version"])
    if (!installed.ok) {
      lines.push({ level: "fail", what, detail: `cannot run it: ${installed.text}` })
      continue
    }
    const number = /\d+\.\d+\.\d+/.exec(installed.text)?.[0]
    lines.push(
      known.verified === undefined || number === known.verified
        ? { level: "ok", what, detail: installed.text }
        : {
          level: "warn",
          what,
          detail: `${installed.text}; orch's screen reading was verified with ${known.verified}${
            project.agent === "coding-agent" ? " (the canary below checks this one)" : ""
          }`
        }
    )
    if (project.agent === "coding-agent") {
      const root = process.getuid?.() === 0
      const sandboxed = Boolean(project.agentConfig.env?.IS_SANDBOX || process.env.IS_SANDBOX)
      if (root && project.agentConfig.permissions === "skip" && !sandboxed) {
        lines.push({
          level: "warn",
          what: `project ${project.key}`,
          detail: "running as root, Claude Code refuses --dangerously-skip-permissions unless IS_SANDBOX=1 (agentConfig.env) says it runs in a sandbox"
        })
      }
      if (canary) {
        const { claudeCanary } = yield* Effect.promise(() => import("../plugins/agent/claude-canary.ts"))
        const checks = yield* claudeCanary(command).pipe(Effect.catch((error) => Effect.succeed([{ name: "start", ok: false, detail: error.message }])))
        for (const check of checks) {
          lines.push({
            level: check.ok ? "ok" : "warn",
            what: `canary ${command}: ${check.name}`,
            detail: check.ok ? check.detail : `${check.detail}; orch may misread this agent's state (see docs/agents.md)`
          })
        }
      }
    }
  }
  return lines
})

/**
 * Each host under `hosts:`: it answers through its connection, with tmux and git there, and can read the origin of
 * each project that may use it (two round trips each, all hosts at once).
 */
const hostChecks = Effect.fnUntraced(function*(config: OrchestratorConfig, data: string) {
  const names = Object.keys(config.hosts)
  if (names.length === 0) return []
  const [{ HostConnections }, { measureHeadroom, dataDirWord }, { originOf }, { shellQuote }] = yield* Effect.promise(() =>
    Promise.all([
      import("../hosts/HostConnections.ts"),
      import("../hosts/headroom.ts"),
      import("../plugins/workspace/remote-workspace.ts"),
      import("../process/shell-quote.ts")
    ])
  )
  return yield* Effect.scoped(Effect.gen(function*() {
    const connections = yield* HostConnections.make({
      hosts: names.map((name) => ({ name, spec: config.hosts[name]! })),
      controlDir: join(data, "ssh")
    })
    // The host gets each project's code from its origin: the host's user must be able to read it (and push rescues).
    const origins = (yield* Effect.forEach(Object.values(config.projects), (project) =>
      originOf(connections, project).pipe(
        Effect.map((url) => [{ project, url }]),
        Effect.orElseSucceed(() => [])
      ))).flat()
    return yield* Effect.forEach(names, (name) =>
      Effect.gen(function*() {
        const what = `host ${name}`
        const facts = yield* measureHeadroom(connections, name, config.hosts[name]!.dataDir)
        if (facts.tmux === undefined) return { level: "fail", what, detail: "answers, but tmux is not installed there; install it on the host" } satisfies Line
        // git, orch's data dir writable, and each origin the host may need readable: one round trip.
        const readsOrigin = origins.filter(({ project }) => project.hosts === undefined || project.hosts.includes(name)).map(({ project, url }) =>
          `if out=$(GIT_TERMINAL_PROMPT=0 git ls-remote -q ${shellQuote(url)} HEAD 2>&1); then :; else echo ${
            shellQuote(`@unreadable ${project.id} ${url}`)
          }": $(printf '%s\n' "$out" | grep -m 1 . )"; fi\n`
        ).join("")
        const git = yield* connections.run(
          name,
          `git --version || exit 3\nd=${
            dataDirWord(config.hosts[name]!.dataDir ?? "~/.orchestrator")
          }\nout=$(mkdir -p "$d" 2>&1 && touch "$d"/.orch-doctor 2>&1 && rm -f "$d"/.orch-doctor) || { echo "$out" >&2; exit 4; }\n${readsOrigin}`,
          { timeout: "30 seconds" }
        )
        if (git.exitCode === 3) return { level: "fail", what, detail: "answers, but git is not installed there; install it on the host" } satisfies Line
        if (git.exitCode !== 0) {
          return {
            level: "fail",
            what,
            detail: `answers, but orch's data dir there cannot be used (${
              git.stderr.trim().split("\n").at(-1)
            }); set the host's dataDir to a directory its user may write`
          } satisfies Line
        }
        const unreadable = git.stdout.split("\n").flatMap((line) => line.startsWith("@unreadable ") ? [line.slice("@unreadable ".length)] : [])
        if (unreadable.length > 0) {
          return {
            level: "fail",
            what,
            detail: `answers, but cannot read the origin of ${
              unreadable.join("; ")
            }; the host's user needs read and push access to it (a path owned by another user also needs git config --global --add safe.directory PATH there)`
          } satisfies Line
        }
        return {
          level: "ok",
          what,
          detail: `answers; ${facts.memAvailableMb} MB of memory free, load ${facts.load1} on ${facts.cpus} cores, tmux ${facts.tmux}, ${
            git.stdout.split("\n")[0]!.trim()
          }`
        } satisfies Line
      }).pipe(Effect.catch((error) => Effect.succeed({ level: "fail", what: `host ${name}`, detail: error.message } satisfies Line))), {
      concurrency: "unbounded"
    })
  })).pipe(Effect.catch((error) => Effect.succeed([{ level: "fail", what: "hosts", detail: error.message } satisfies Line])))
})

/**
 * Where queued work waits because a spawn there failed (src/domain/holds.ts): a warning each, with why and when orch
 * tries again. A host that just passed every check (`passed`) takes the held projects' sessions again: its holds end.
 */
const holdChecks = Effect.fnUntraced(function*(data: string, passed: ReadonlyArray<string>) {
  const [{ readHolds }, { activeHolds }, { clockTime }, { liftHolds }, { EventLog }, { storePaths }] = yield* Effect.promise(() =>
    Promise.all([
      import("../store/holds-file.ts"),
      import("../domain/holds.ts"),
      import("../domain/rate-limit.ts"),
      import("../sessions/queueing.ts"),
      import("../store/EventLog.ts"),
      import("../store/paths.ts")
    ])
  )
  const now = yield* Clock.currentTimeMillis
  const holds = yield* readHolds(data).pipe(Effect.catch((error) => Effect.succeed(error.message)))
  if (typeof holds === "string") return [{ level: "warn", what: "holds", detail: holds } satisfies Line]
  const cleared = holds.filter((hold) => hold.host !== undefined && passed.includes(hold.host))
  if (cleared.length > 0) {
    const events = yield* EventLog.make(storePaths(data).events)
    for (const hold of cleared) yield* liftHolds(data, events, hold.project, hold.host!, "it passes orch doctor's checks again")
  }
  const clearedLines = cleared.map((hold): Line => ({
    level: "ok",
    what: hold.host === "local" ? "this machine" : `host ${hold.host}`,
    detail: `passes its checks again: orch starts ${hold.project}'s sessions there again (it had been left out: ${hold.reason})`
  }))
  return [
    ...clearedLines,
    ...activeHolds(holds.filter((hold) => !cleared.includes(hold)), now).map((hold): Line => ({
      level: "warn",
      what: hold.host === undefined ? `project ${hold.project}` : hold.host === "local" ? "this machine" : `host ${hold.host}`,
      detail: `${hold.host === undefined ? "its queued work is held" : `left out for ${hold.project}`}: a spawn failed (${hold.reason}); orch tries again ${
        clockTime(now)(Date.parse(hold.retryAt))
      }`
    }))
  ]
})

/**
 * The notifiers the routing names: those that cannot deliver on this machine (known without sending anything) and,
 * with `--notify`, a test notification through each of the others, one at a time, so each answers for itself.
 */
const notifierChecks = Effect.fnUntraced(function*(config: OrchestratorConfig, sendTest: boolean) {
  const [{ makeInbox }, { buildNotifiers }, { NotifierRouter, deliverable }, { EventLog }, { newNotification }] = yield* Effect.promise(() =>
    Promise.all([
      import("../store/Inbox.ts"),
      import("../plugins/notifier/registry.ts"),
      import("../../actors/notifier-router.ts"),
      import("../store/EventLog.ts"),
      import("../domain/notification.ts")
    ])
  )
  const notifiers = yield* buildNotifiers(config, makeInbox(dataDir(yield* Host)))
  const lines = new Map<string, Line>()
  const sent = new Set<string>()
  for (const route of Object.values(config.notificationRouting)) {
    const { send, skipped } = deliverable(route, notifiers)
    for (const { notifier, reason } of skipped) {
      lines.set(notifier, { level: "warn", what: `notify ${notifier}`, detail: `${reason}; its notifications go to ${send.join(", ")}` })
    }
    for (const name of send) sent.add(name)
  }
  for (const name of sent) {
    const reason = notifiers.get(name)?.unavailable
    if (reason !== undefined) lines.set(name, { level: "fail", what: `notify ${name}`, detail: reason })
  }
  if (sendTest) {
    if (sent.size === 0) return [{ level: "warn", what: "notify", detail: "notificationRouting sends nothing to any notifier" } satisfies Line]
    const deliveries = yield* Effect.gen(function*() {
      const router = yield* NotifierRouter.make(notifiers, config.notificationRouting)
      const test = yield* newNotification({ type: "test", priority: "info", title: "orch doctor", message: "This is a test notification from orch doctor." })
      return yield* Effect.forEach([...sent].filter((name) => !lines.has(name)), (name) => router.deliver(test, name))
    }).pipe(Effect.provide(EventLog.layer), Effect.scoped)
    for (const d of deliveries.flat()) {
      lines.set(
        d.notifier,
        d.ok
          ? { level: "ok", what: `notify ${d.notifier}`, detail: "delivered" }
          : { level: "fail", what: `notify ${d.notifier}`, detail: d.reason ?? "failed" }
      )
    }
  }
  return [...lines.values()]
})

export const runDoctor = Effect.fn("cli.doctor")(function*({ notify, noCanary }: { readonly notify: boolean; readonly noCanary: boolean }) {
  const host = yield* Host
  const lines: Array<Line> = [nodeCheck(process.version, NODE_ENGINES)]
  for (const tool of TOOLS) {
    const lookup = findProgram(tool.name, host.env.PATH)
    if (lookup._tag === "Missing") {
      lines.push({ level: "fail", what: tool.name, detail: missingProgram(lookup, tool.install, tool.otherwise) })
      continue
    }
    const found = yield* version(tool.name, tool.args)
    lines.push(
      !found.ok
        ? { level: "fail", what: tool.name, detail: `not usable: ${found.text}` }
        : tool.name === "git"
        ? gitCheck(found.text)
        : { level: "ok", what: tool.name, detail: found.text }
    )
  }
  const [{ loadConfigFile }, { checkPlugins }] = yield* Effect.promise(() => Promise.all([import("../config/load.ts"), import("../plugins/config-check.ts")]))
  const loaded = yield* loadConfigFile().pipe(Effect.catch((error) => Effect.succeed({ error: error.message })))
  lines.push(dataDirCheck(dataDir(host)))
  if ("error" in loaded) {
    lines.push({ level: "fail", what: "config", detail: loaded.error })
    lines.push(tmuxSocketCheck(host.env))
  } else {
    const { config } = loaded
    // The one check `orch config validate` makes: each project's plugins get a line, problems one line each.
    const checked = yield* checkPlugins(loaded)
    lines.push(...configLines(config, loaded.path, checked))
    if (Object.values(config.projects).some((p) => p.runtime === "multiplexer")) lines.push(tmuxSocketCheck(host.env))
    lines.push(...yield* supervisorChecks(dataDir(host), config))
    const hostLines = yield* hostChecks(config, dataDir(host))
    lines.push(...hostLines)
    lines.push(...yield* agentChecks(config, !noCanary, checked))
    lines.push(...yield* notifierChecks(config, notify))
    // A host that passes every check is tried again for the projects held back there; this machine when nothing failed.
    const passed = [
      ...hostLines.flatMap((line) => line.level === "ok" ? [line.what.replace(/^host /, "")] : []),
      ...(lines.some((line) => line.level === "fail") ? [] : ["local"])
    ]
    lines.push(...yield* holdChecks(dataDir(host), passed))
  }
  for (const line of lines) yield* Console.log(`${line.level.padEnd(4)}  ${line.what}: ${line.detail}`)
  const failed = lines.filter((l) => l.level === "fail").length
  if (failed > 0) return yield* new DoctorFailed({ failed })
})
