/**
 * The demo's sandbox, all in one temp directory: the project repository (a clone with a bare `origin` the
 * emulated repohost serves), orch's data directory, a private tmux socket, and the config that ties them.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { stringify } from "yaml"
import { DEMO_PROJECT, DEMO_REPO, WEBHOOK_SECRET_VAR } from "./scenario.ts"

export interface DemoSandbox {
  readonly root: string
  readonly origin: string
  readonly repo: string
  readonly dataDir: string
  readonly socket: string
  readonly configPath: string
}

const git = (cwd: string, ...args: Array<string>) => execFileSync("git", ["-C", cwd, ...args], { stdio: "ignore" })

export const makeSandbox = (): DemoSandbox => {
  const root = mkdtempSync(join(tmpdir(), "orch-demo-"))
  const origin = join(root, "demo-origin.git")
  const repo = join(root, "demo")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  mkdirSync(join(repo, "src"), { recursive: true })
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  git(repo, "config", "user.name", "Demo Agent")
  git(repo, "config", "user.email", "agent@demo.invalid")
  writeFileSync(
    join(repo, "package.json"),
    `${JSON.stringify({ name: "demo", version: "1.0.0", type: "module", scripts: { test: "node --test" } }, null, 2)}\n`
  )
  writeFileSync(join(repo, "src", "index.js"), "export const version = \"1.0.0\"\n")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "A tiny library")
  git(repo, "remote", "add", "origin", origin)
  git(repo, "push", "-q", "origin", "main")
  const dataDir = join(root, "orch")
  mkdirSync(dataDir)
  return { root, origin, repo, dataDir, socket: join(root, "tmux.sock"), configPath: join(root, "orchestrator.yaml") }
}

export interface DemoConfigOptions {
  /** The dashboard's port, and its two terminal sockets'. */
  readonly port: number
  readonly terminalPort: number
  readonly directTerminalPort: number
  readonly apiUrl: string
  /** The scripted agent's command line. */
  readonly agentCommand: string
}

/** The demo's config: the `command` agent, the emulated repohost with webhooks, auto-merge, the hosted inbox. */
export const writeDemoConfig = (sandbox: DemoSandbox, options: DemoConfigOptions) =>
  writeFileSync(
    sandbox.configPath,
    stringify({
      port: options.port,
      terminalPort: options.terminalPort,
      directTerminalPort: options.directTerminalPort,
      // Webhooks bring the news at once; the poll is only the fallback.
      pollIntervalMs: 10_000,
      defaults: { notifiers: ["hosted"] },
      notificationRouting: { urgent: ["hosted"], action: ["hosted"], warning: ["hosted"], info: ["hosted"] },
      reactions: { "approved-and-green": { action: "auto-merge", auto: true } },
      projects: {
        [DEMO_PROJECT]: {
          name: "Demo",
          repo: DEMO_REPO,
          path: sandbox.repo,
          defaultBranch: "main",
          sessionPrefix: DEMO_PROJECT,
          agent: "command",
          agentConfig: { command: options.agentCommand },
          // The emulator takes any token; this one keeps orch from asking `gh` or the environment for a real one.
          tracker: { plugin: "repohost", apiUrl: options.apiUrl, token: "demo-token" },
          scm: { plugin: "repohost", apiUrl: options.apiUrl, token: "demo-token", webhookSecret: `\${${WEBHOOK_SECRET_VAR}}` }
        }
      }
    })
  )
