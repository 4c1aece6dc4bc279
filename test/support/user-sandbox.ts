/**
 * A sandbox for the default paths, as a user has them: a temp HOME, a project repository whose config is its own
 * `orchestrator.yaml` (or the user-level one), tmux's default socket made private by an empty TMUX_TMPDIR, and
 * none of orch's test variables (ORCH_CONFIG_PATH, ORCH_TMUX_SOCKET, ORCH_HOME). Commands run from any directory.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { type OrchRun, runOrchAsync } from "./cli.ts"
import { tempDir } from "./host.ts"
import { freePorts } from "./ports.ts"
import { makeRepo } from "./repo.ts"
import { tmuxSessions } from "./tmux.ts"

export const ECHO_AGENT = `echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`

export const userSandbox = Effect.gen(function*() {
  const root = yield* tempDir("orch-user-")
  const home = join(root, "home")
  const tmuxDir = join(root, "tmux")
  mkdirSync(home)
  mkdirSync(tmuxDir)
  const socket = join(tmuxDir, `tmux-${process.getuid?.() ?? 0}`, "default")
  const elsewhere = join(root, "elsewhere")
  mkdirSync(elsewhere)
  const repo = makeRepo(root)
  const [port, terminalPort, directTerminalPort] = yield* freePorts(3)
  const ports = { port: port!, terminalPort: terminalPort!, directTerminalPort: directTerminalPort! }
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      try {
        const { pid } = JSON.parse(readFileSync(join(home, ".orchestrator", "supervisor.json"), "utf8")) as { pid: number }
        process.kill(pid, "SIGKILL")
      } catch {
        // none running
      }
      try {
        execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
      } catch {
        // no server was started
      }
    })
  )
  const env = { HOME: home, TMUX_TMPDIR: tmuxDir }
  /** The project's entry, as a user would write it. */
  const project = (extra: Record<string, unknown> = {}) => ({
    repo: "acme/app",
    path: repo.path,
    agent: "command",
    agentConfig: { command: ECHO_AGENT },
    tracker: "none",
    scm: "none",
    ...extra
  })
  /** Writes `orchestrator.yaml` in the repository. */
  const writeRepoConfig = (extra: Record<string, unknown> = {}) => {
    const file = join(repo.path, "orchestrator.yaml")
    writeFileSync(file, stringify({ ...ports, projects: { app: project(extra) } }))
    return file
  }
  const userConfigFile = join(home, ".config", "orchestrator", "config.yaml")
  const orch = (args: ReadonlyArray<string>, options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}): Effect.Effect<OrchRun> =>
    runOrchAsync(args, { cwd: options.cwd ?? elsewhere, env: { ...env, ...options.env } })
  const dataDir = join(home, ".orchestrator")
  const record = (sessionId: string, projectId = "app") => JSON.parse(readFileSync(join(dataDir, "sessions", projectId, sessionId, "session.json"), "utf8"))
  const events = () =>
    existsSync(join(dataDir, "events.jsonl"))
      ? readFileSync(join(dataDir, "events.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line))
      : []
  const tmux = (...args: Array<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  return {
    root,
    home,
    tmuxDir,
    socket,
    elsewhere,
    repo,
    ports,
    env,
    project,
    writeRepoConfig,
    userConfigFile,
    orch,
    dataDir,
    record,
    events,
    tmux,
    sessions: () => tmuxSessions(socket)
  }
})
