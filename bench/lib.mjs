// Shared helpers for the benchmark scripts: timing child processes, medians, and writing BENCHMARKS.md.
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer } from "node:net"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"

export const ORCH = new URL("../dist/orch.mjs", import.meta.url).pathname

/** Wall time of one run of a command, in milliseconds. Throws if it fails. */
export const timeRun = (file, args, options = {}) => {
  const start = process.hrtime.bigint()
  const result = spawnSync(file, args, { encoding: "utf8", ...options })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (result.status !== 0) throw new Error(`${file} ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return ms
}

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
export const median = (values) => percentile(values, 50)

/** Runs the candidates interleaved (a, b, a, b, …) so machine noise hits them alike; returns samples per name. */
export const interleave = (runs, candidates) => {
  const samples = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]))
  for (const run of Object.values(candidates)) run() // warm-up: file cache, JIT of the runner
  for (let i = 0; i < runs; i++) for (const [name, run] of Object.entries(candidates)) samples[name].push(run())
  return samples
}

export const ms = (value) => `${value.toFixed(1)} ms`
export const ratio = (value, floor) => `${(value / floor).toFixed(2)}×`

export const machine = () => `${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, Node ${process.version}`

/** Replaces (or appends) the section `## <title>` of BENCHMARKS.md with `body`. */
export const recordSection = (title, body) => {
  const file = new URL("../BENCHMARKS.md", import.meta.url).pathname
  const header = "# Benchmarks\n\nMeasured by the scripts in `bench/` (`npm run bench`, or one script with `node bench/<name>.mjs`).\n" +
    "Each compares orch with the floor it cannot beat, in the same run, so the ratios hold on a noisy machine.\n"
  const text = existsSync(file) ? readFileSync(file, "utf8") : header
  const section = `## ${title}\n\n${body.trim()}\n`
  const pattern = new RegExp(`## ${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n[\\s\\S]*?(?=\\n## |$)`)
  const updated = pattern.test(text) ? text.replace(pattern, section) : `${text.trimEnd()}\n\n${section}`
  writeFileSync(file, updated.trimEnd() + "\n")
}

/** A port nothing listens on right now. */
export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** Ends a bench's private tmux server and removes its sandbox directory. */
export const removeSandbox = (root, socket) => {
  try {
    execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
  } catch {
    // no server left
  }
  rmSync(root, { recursive: true, force: true })
}

/**
 * A sandbox for spawn benchmarks: a repository with a bare origin, a local GitHub stand-in answering issue lookups
 * (so no spawn waits on a network), and a config with one project `app` whose agent is `cat`. `close()` ends it.
 */
export const spawnSandbox = async (prefix) => {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const socket = join(root, "tmux.sock")
  const home = join(root, "home")
  const env = { ...process.env, HOME: home, ORCH_TMUX_SOCKET: socket, ORCH_CONFIG_PATH: join(root, "orchestrator.yaml") }
  delete env.TMUX
  const git = (cwd, ...args) => execFileSync("git", ["-C", cwd, ...args], { stdio: "ignore" })
  const origin = join(root, "origin.git")
  const repo = join(root, "app")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  writeFileSync(join(repo, "README.md"), "# app\n")
  git(repo, "add", ".")
  git(repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "init")
  git(repo, "remote", "add", "origin", origin)
  git(repo, "push", "-q", "origin", "main")
  const server = createHttpServer((req, res) => {
    const n = /issues\/(\d+)$/.exec(req.url ?? "")?.[1]
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ number: Number(n), title: `Issue ${n}`, body: "Do it.", labels: [], html_url: `https://example/${n}` }))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  // Ports of its own, so a supervisor it starts never meets one that is taken.
  writeFileSync(
    env.ORCH_CONFIG_PATH,
    [
      `port: ${await freePort()}`,
      `terminalPort: ${await freePort()}`,
      `directTerminalPort: ${await freePort()}`,
      "projects:",
      "  app:",
      "    repo: acme/app",
      `    path: ${repo}`,
      "    agent: command",
      "    agentConfig: { command: 'cat' }",
      `    tracker: { plugin: repohost, apiUrl: "http://127.0.0.1:${server.address().port}" }`
    ].join("\n")
  )
  return {
    root,
    socket,
    home,
    env,
    repo,
    close: () => {
      server.close()
      removeSandbox(root, socket)
    }
  }
}

export const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec))

/** Polls `probe` until it answers something truthy (and answers that), every `everyMs`, failing after `timeoutMs`. */
export const waitFor = async (what, probe, timeoutMs = 120_000, everyMs = 50) => {
  const start = Date.now()
  for (;;) {
    const value = probe()
    if (value) return value
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(everyMs)
  }
}

/** The scripted model server (test/agents/model-server.ts, test code in TypeScript), bundled into `root` for plain node. */
export const loadModelServer = async (root) => {
  const { build } = await import("esbuild")
  await build({
    entryPoints: [new URL("../test/agents/model-server.ts", import.meta.url).pathname],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: join(root, "model-server.mjs"),
    logLevel: "warning"
  })
  return import(join(root, "model-server.mjs"))
}

/**
 * A project for the real Claude Code CLI under `root`: a repository `app` with a bare origin, and a HOME whose
 * `~/.claude.json` has the CLI's first-run questions answered (onboarding, the API key `key`, trust of `app`).
 */
export const claudeProject = (root, key) => {
  const home = join(root, "home")
  const repo = join(root, "app")
  const origin = join(root, "origin.git")
  const git = (cwd, ...args) => execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8" }).trim()
  execFileSync("mkdir", ["-p", home])
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  git(repo, "config", "user.email", "bench@example.com")
  git(repo, "config", "user.name", "Bench")
  writeFileSync(join(repo, "README.md"), "# app\n")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "initial")
  git(repo, "remote", "add", "origin", origin)
  git(repo, "push", "-q", "origin", "main")
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      bypassPermissionsModeAccepted: true,
      customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
      projects: { [repo]: { hasTrustDialogAccepted: true } }
    })
  )
  return { home, repo, origin }
}

/** Runs the built CLI with `env` without blocking this process (servers a bench runs here must go on answering). */
export const orchRunner = (env) => (...args) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ORCH, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let err = ""
    child.stderr.on("data", (d) => (err += d))
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`orch ${args.join(" ")}: ${code} ${err}`))))
  })
