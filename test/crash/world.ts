/**
 * One run's machine, as a new user has it: a fresh HOME, a TMUX_TMPDIR where tmux never ran (its default socket
 * under it), a TMPDIR of its own, a git repository with a bare origin whose own `orchestrator.yaml` is the config (commands run from the
 * repository; no ORCH_CONFIG_PATH, no ORCH_TMUX_SOCKET: only the crash variables), the repohost emulator as the
 * tracker with open issues, and the `command` agent running a script that leaves unsaved work: at start it writes
 * `notes/<session>.txt` in its worktree (uncommitted), then appends the session id to `started.log` outside the
 * repository, then waits. `close()` ends every process of the run and removes it.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { dirname, join } from "node:path"
import { stringify } from "yaml"
import { type Emulator, startEmulator } from "../../src/demo/emulator/server.ts"
import { startRemoteHost } from "./remote-host.ts"

export const ORCH_BIN = new URL("../../dist/orch.mjs", import.meta.url).pathname
const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
/** Below the kernel's ephemeral range (32768–60999), above what other tests use (20000–31999). */
const PORT_RANGE = [12_000, 19_999] as const

export interface WorldOptions {
  /** Open issues in the tracker: 1 … issues. */
  readonly issues: number
  /** Top-level maxSessions; unset: no limit. */
  readonly maxSessions?: number
  /** The project's sessions run on host `b`, a real sshd host (remote-host.ts; needs root), not here. */
  readonly remoteHost?: boolean
  /**
   * The project has a merge train (`mergeTrain: true`, PRs looked at every second), and CI fails a tree that has the
   * work of both sessions 1 and 2 (`work-1.txt` and `work-2.txt`): each green alone, red together.
   */
  readonly mergeTrain?: boolean
  /** Each agent also commits a `conflict.txt` of its own: every two sessions' branches conflict. */
  readonly commits?: boolean
}

/** The file the merge-train scenario's session for `issue` adds (world.ts's CI rule knows two of them disagree). */
export const workFile = (issue: string) => `work-${issue}.txt`

export interface OrchResult {
  readonly args: ReadonlyArray<string>
  readonly pid: number
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

export interface OrchOptions {
  /** ORCH_CRASH_AT for this process (and the processes it starts). */
  readonly crashAt?: string | undefined
  /** Append crash points to the run's trace file (ORCH_CRASH_TRACE). */
  readonly trace?: boolean
  readonly timeoutMs?: number
}

export interface RunningOrch {
  readonly pid: number
  readonly done: Promise<OrchResult>
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/** Ports nothing listens on now, for the supervisor's dashboard and terminal sockets. */
const freePorts = async (count: number): Promise<Array<number>> => {
  const ports = new Set<number>()
  while (ports.size < count) {
    const port = PORT_RANGE[0] + Math.floor(Math.random() * (PORT_RANGE[1] - PORT_RANGE[0]))
    if (!ports.has(port) && (await bindable(port))) ports.add(port)
  }
  return [...ports]
}

/** Processes whose environment has `HOME=<home>`: every process a run started (orch, tmux's server, agents). */
export const processesOf = (home: string): Array<number> => {
  const wanted = `HOME=${home}`
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(wanted) ? [Number(pid)] : []
    } catch {
      return []
    }
  })
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
  } catch {
    return false
  }
}

/** What the agent leaves uncommitted in `notes/<session>.txt`: the words the explorer looks for later. */
export const notesText = (sessionId: string, issueId: string) => `unsaved work of ${sessionId} (issue ${issueId})`

const agentScript = (startedLog: string, leakedLog: string, commits: boolean) =>
  [
    "#!/bin/sh",
    "# The crash variables are orch's alone: an agent that has them says so.",
    `[ -n "$ORCH_CRASH_AT$ORCH_CRASH_TRACE" ] && echo "$ORCH_SESSION_ID" >> '${leakedLog}'`,
    "# Unsaved work first (uncommitted, in the worktree), then its receipt outside the repository, then wait.",
    "mkdir -p notes",
    `echo "${notesText("$ORCH_SESSION_ID", "$ORCH_ISSUE_ID")}" > "notes/$ORCH_SESSION_ID.txt"`,
    ...(commits ? [`echo "$ORCH_SESSION_ID" > conflict.txt && git add conflict.txt && git commit -qm "conflict.txt of $ORCH_SESSION_ID"`] : []),
    `echo "$ORCH_SESSION_ID $ORCH_ISSUE_ID" >> '${startedLog}'`,
    "exec cat",
    ""
  ].join("\n")

export const makeWorld = async (options: WorldOptions) => {
  const root = mkdtempSync(join(tmpdir(), "orch-crash-"))
  const home = join(root, "home")
  const tmuxTmpdir = join(root, "tmux")
  // orch's own temp files (an agent's environment file, a rescue's index) stay in the run, even when a crash leaves them.
  const tmp = join(root, "tmp")
  mkdirSync(home)
  mkdirSync(tmuxTmpdir, { mode: 0o700 })
  mkdirSync(tmp)
  const socket = join(tmuxTmpdir, `tmux-${process.getuid!()}`, "default")
  const dataDir = join(home, ".orchestrator")
  const startedLog = join(root, "started.log")
  const traceFile = join(root, "trace.jsonl")
  const leakedLog = join(root, "leaked.log")
  const env: Record<string, string> = {
    HOME: home,
    PATH: [...new Set([dirname(process.execPath), ...SYSTEM_PATH])].join(":"),
    TMUX_TMPDIR: tmuxTmpdir,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    USER: userInfo().username
  }
  const git = (cwd: string, ...args: Array<string>) =>
    execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8", env, stdio: ["ignore", "pipe", "pipe"] }).trim()

  const origin = join(root, "origin.git")
  const repo = join(root, "app")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin], { env })
  mkdirSync(repo)
  git(repo, "init", "-q", "-b", "main")
  git(repo, "config", "user.email", "dev@example.com")
  git(repo, "config", "user.name", "Dev")
  writeFileSync(join(repo, "README.md"), "# app\n")
  writeFileSync(join(repo, ".gitignore"), "orchestrator.yaml\n")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "initial")
  git(repo, "remote", "add", "origin", origin)
  git(repo, "push", "-q", "-u", "origin", "main")

  const agent = join(root, "agent.sh")
  writeFileSync(agent, agentScript(startedLog, leakedLog, options.commits === true), { mode: 0o755 })
  // Every CI verdict, by commit: the receipts of which heads had their checks pass.
  const ciVerdicts = new Map<string, "success" | "failure">()
  const emulator: Emulator = await startEmulator({
    repos: [{ repo: "acme/app", gitDir: origin }],
    ci: ({ sha, files }) => {
      const verdict = options.mergeTrain === true && files.includes(workFile("1")) && files.includes(workFile("2")) ? "failure" : "success"
      ciVerdicts.set(sha, verdict)
      return verdict
    }
  })
  for (let i = 1; i <= options.issues; i++) emulator.addIssue("acme/app", { title: `Issue ${i}`, body: `Do ${i}.` })

  const host = options.remoteHost === true ? await startRemoteHost(root, origin, [startedLog, leakedLog]) : undefined
  const [port, terminalPort, directTerminalPort] = await freePorts(3)
  const configFile = join(repo, "orchestrator.yaml")
  /** Writes the repository's orchestrator.yaml with `maxSessions` (unset: no limit). */
  const writeConfig = (maxSessions: number | undefined) =>
    writeFileSync(
      configFile,
      stringify({
        port,
        terminalPort,
        directTerminalPort,
        ...(maxSessions !== undefined ? { maxSessions } : {}),
        ...(options.mergeTrain === true ? { pollIntervalMs: 1000 } : {}),
        ...(host !== undefined ? { hosts: { [host.name]: host.config } } : {}),
        defaults: { notifiers: ["hosted"] },
        projects: {
          app: {
            repo: "acme/app",
            path: repo,
            sessionPrefix: "app",
            agent: "command",
            agentConfig: { command: agent },
            tracker: { plugin: "repohost", apiUrl: emulator.url },
            scm: { plugin: "repohost", apiUrl: emulator.url },
            ...(options.mergeTrain === true ? { mergeTrain: true } : {}),
            ...(host !== undefined ? { hosts: [host.name] } : {})
          }
        }
      })
    )
  writeConfig(options.maxSessions)

  const supervisorPids = new Set<number>()
  /** Starts `orch <args>` from the repository; `done` settles when it exits (killed after `timeoutMs`). */
  const startOrch = (args: ReadonlyArray<string>, orchOptions: OrchOptions = {}): RunningOrch => {
    const started = Date.now()
    const child = spawn(process.execPath, [ORCH_BIN, ...args], {
      cwd: repo,
      env: {
        ...env,
        ...(orchOptions.trace === true ? { ORCH_CRASH_TRACE: traceFile } : {}),
        ...(orchOptions.crashAt !== undefined ? { ORCH_CRASH_AT: orchOptions.crashAt } : {})
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), orchOptions.timeoutMs ?? 90_000)
    const done = new Promise<OrchResult>((resolve) => {
      child.once("close", (code, signal) => {
        clearTimeout(timer)
        resolve({ args, pid: child.pid!, code, signal, stdout, stderr, ms: Date.now() - started })
      })
    })
    return { pid: child.pid!, done }
  }
  const orch = (args: ReadonlyArray<string>, orchOptions: OrchOptions = {}) => startOrch(args, orchOptions).done

  const readJson = (path: string): unknown => {
    try {
      return JSON.parse(readFileSync(path, "utf8"))
    } catch {
      return undefined
    }
  }
  /** The pid supervisor.json names now. */
  const supervisorPid = (): number | undefined => {
    const pid = (readJson(join(dataDir, "supervisor.json")) as { pid?: number } | undefined)?.pid
    if (pid !== undefined) supervisorPids.add(pid)
    return pid
  }
  const lines = (path: string): Array<string> => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [])
  const tmuxSessions = (): Array<string> => {
    try {
      return execFileSync("tmux", ["-S", socket, "list-sessions", "-F", "#{session_name}"], { encoding: "utf8", env, stdio: ["ignore", "pipe", "ignore"] })
        .split("\n").filter(Boolean)
    } catch {
      return []
    }
  }

  const close = async () => {
    for (let round = 0; round < 3; round++) {
      const pids = [...processesOf(home), ...[...supervisorPids].filter(isAlive)]
      if (pids.length === 0) break
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // gone already
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await emulator.close()
    await host?.close()
    // To look at what a run left: CRASH_EXPLORER_KEEP=1 keeps its directory (its processes are ended all the same).
    if (process.env.CRASH_EXPLORER_KEEP === "1") console.log(`kept ${root}`)
    else rmSync(root, { recursive: true, force: true, maxRetries: 5 })
  }

  return {
    root,
    home,
    dataDir,
    repo,
    origin,
    socket,
    tmp,
    startedLog,
    leakedLog,
    traceFile,
    configFile,
    emulator,
    ciVerdicts,
    env,
    git,
    writeConfig,
    startOrch,
    orch,
    supervisorPid,
    readJson,
    lines,
    tmuxSessions,
    /** Kills host `b` (its sshd and its user's processes); nothing without one. */
    hostDown: async () => host?.down(),
    close
  }
}

export type World = Awaited<ReturnType<typeof makeWorld>>
