/**
 * An orch sandbox for end-to-end tests: a temp HOME with a project repository (bare origin + clone), a private
 * tmux server, a config using the `command` agent, and helpers that run the built `orch` like a user would.
 */
import * as Effect from "effect/Effect"
import { execFileSync, spawn as spawnProcess } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { ORCH_BIN, type OrchRun, runOrchAsync } from "./cli.ts"
import { tempDir } from "./host.ts"
import { freePorts } from "./ports.ts"
import { makeRepo } from "./repo.ts"
import { privateTmux, tmuxSessions } from "./tmux.ts"

/** An agent that prints its task's first line, then answers each input line with `got: <line>`. */
export const ECHO_AGENT = `echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`

export interface SandboxOptions {
  readonly agentCommand?: string
  readonly project?: Record<string, unknown>
  readonly trackerUrl?: string
  /** Top-level config keys besides `projects`. */
  readonly config?: Record<string, unknown>
}

export const sandbox = (options: SandboxOptions = {}) =>
  Effect.gen(function*() {
    // The supervisor also listens for terminal sockets: every sandbox gets its own ports for them.
    const [port, terminalPort, directTerminalPort] = yield* freePorts(3)
    const root = yield* tempDir("orch-e2e-")
    const { socket } = yield* privateTmux
    // A supervisor a test started is stopped with the test, even when the test fails half-way.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        try {
          const { pid } = JSON.parse(readFileSync(join(root, "home", ".orchestrator", "supervisor.json"), "utf8")) as { pid: number }
          process.kill(pid, "SIGKILL")
        } catch {
          // none running
        }
      })
    )
    const home = join(root, "home")
    const repo = makeRepo(root)
    const config = join(root, "orchestrator.yaml")
    const writeConfig = (project: Record<string, unknown> = {}) =>
      writeFileSync(
        config,
        stringify({
          port,
          terminalPort,
          directTerminalPort,
          ...options.config,
          projects: {
            app: {
              repo: "acme/app",
              path: repo.path,
              agent: "command",
              agentConfig: { command: options.agentCommand ?? ECHO_AGENT },
              tracker: { plugin: "repohost", apiUrl: options.trackerUrl ?? "http://127.0.0.1:9" },
              ...options.project,
              ...project
            }
          }
        })
      )
    writeConfig()
    const env = { HOME: home, ORCH_CONFIG_PATH: config, ORCH_TMUX_SOCKET: socket }
    const orch = (args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}): Effect.Effect<OrchRun> =>
      runOrchAsync(args, { cwd: root, env: { ...env, ...extraEnv } })
    /** Starts `orch` without waiting for it. */
    const orchAsync = (args: ReadonlyArray<string>) =>
      spawnProcess(process.execPath, [ORCH_BIN, ...args], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdio: "pipe" })
    const dataDir = join(home, ".orchestrator")
    const record = (sessionId: string) => JSON.parse(readFileSync(join(dataDir, "sessions", "app", sessionId, "session.json"), "utf8"))
    const events = () =>
      existsSync(join(dataDir, "events.jsonl"))
        ? readFileSync(join(dataDir, "events.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line))
        : []
    const screen = (sessionId: string) => {
      try {
        return execFileSync("tmux", ["-S", socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", `=${sessionId}:`], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"]
        })
      } catch {
        return ""
      }
    }
    return {
      root,
      home,
      port,
      terminalPort,
      directTerminalPort,
      socket,
      repo,
      config,
      env,
      orch,
      orchAsync,
      dataDir,
      record,
      events,
      writeConfig,
      screen,
      sessions: () => tmuxSessions(socket)
    }
  })
