// Spawn speed: `orch spawn` against its floor (bare node start + `git worktree add` + `tmux new-session`),
// `orch status --json` over 200 records against bare node, and `batch-spawn` of 20 issues against 20
// sequential spawns. Targets: spawn within floor + 150 ms; status under 4× node; batch under half.
// Spawn is measured twice: by the CLI alone (it loads Effect, the command tree and the config: ~300 ms before any
// work), and through a running supervisor (the CLI's fast path: a few lines of node:net, the work done warm).
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { machine, median, ms, ORCH, percentile, ratio, recordSection, removeSandbox } from "./lib.mjs"

const run = promisify(execFile)
const RUNS = Number(process.env.BENCH_RUNS ?? 10)
const root = mkdtempSync(join(tmpdir(), "orch-bench-spawn-"))
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

// A local GitHub stand-in for the issue lookups, so no spawn waits on a network.
const server = createServer((req, res) => {
  const n = /issues\/(\d+)$/.exec(req.url ?? "")?.[1]
  res.writeHead(200, { "content-type": "application/json" })
  res.end(JSON.stringify({ number: Number(n), title: `Issue ${n}`, body: "Do it.", labels: [], html_url: `https://example/${n}` }))
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
writeFileSync(env.ORCH_CONFIG_PATH, [
  "projects:",
  "  app:",
  "    repo: acme/app",
  `    path: ${repo}`,
  "    agent: command",
  "    agentConfig: { command: 'cat' }",
  `    tracker: { plugin: repohost, apiUrl: "http://127.0.0.1:${server.address().port}" }`
].join("\n"))

const time = async (file, args, options = {}) => {
  const start = process.hrtime.bigint()
  await run(file, args, { env, ...options })
  return Number(process.hrtime.bigint() - start) / 1e6
}
const orch = (...args) => time(process.execPath, [ORCH, ...args])

try {
  let issue = 0
  let floorN = 0
  const spawnSamples = []
  const floorSamples = []
  await orch("spawn", "app", String(++issue)) // warm-up: file cache, the tmux server
  for (let i = 0; i < RUNS; i++) {
    spawnSamples.push(await orch("spawn", "app", String(++issue)))
    const n = ++floorN
    floorSamples.push(
      await time(process.execPath, ["-e", "0"]) +
        await time("git", ["-C", repo, "worktree", "add", "--quiet", "--no-track", "-b", `floor/${n}`, join(root, "floor", String(n)), "origin/main"]) +
        await time("tmux", ["-S", socket, "new-session", "-d", "-s", `floor-${n}`, "-c", join(root, "floor", String(n)), "cat"])
    )
  }

  // 200 records for status: real records copied from one spawn, renumbered.
  const sessions = join(home, ".orchestrator", "sessions", "app")
  const template = JSON.parse(execFileSync(process.execPath, [ORCH, "status", "--json"], { env, encoding: "utf8" }))[0]
  for (let n = 1000; n < 1200; n++) {
    mkdirSync(join(sessions, `app-${n}`), { recursive: true })
    writeFileSync(join(sessions, `app-${n}`, "session.json"), JSON.stringify({ ...template, sessionId: `app-${n}`, issueId: String(n) }))
  }
  const statusSamples = []
  const nodeSamples = []
  for (let i = 0; i < RUNS * 2; i++) {
    nodeSamples.push(await time(process.execPath, ["-e", "0"]))
    statusSamples.push(await orch("status", "--json"))
  }

  // The same spawn through a running supervisor (the CLI then loads no config; the supervisor is warm).
  execFileSync(process.execPath, [ORCH, "start", "app", "--detach"], { env })
  const viaSupervisor = []
  for (let i = 0; i < RUNS; i++) viaSupervisor.push(await orch("spawn", "app", String(++issue)))
  execFileSync(process.execPath, [ORCH, "stop"], { env })

  const batchIssues = Array.from({ length: 20 }, () => String(++issue))
  const batchMs = await orch("batch-spawn", "app", ...batchIssues)
  const sequentialStart = process.hrtime.bigint()
  for (let i = 0; i < 20; i++) await orch("spawn", "app", String(++issue))
  const sequentialMs = Number(process.hrtime.bigint() - sequentialStart) / 1e6

  const spawnMedian = median(spawnSamples)
  const floorMedian = median(floorSamples)
  const nodeMedian = median(nodeSamples)
  const statusMedian = median(statusSamples)
  const body = [
    `${machine()}; ${RUNS} spawns (and as many floors) interleaved, ${new Date().toISOString().slice(0, 10)}. Agent: \`command\` (cat); tracker: a local HTTP server.`,
    "",
    "| measure | median | p95 | against | target |",
    "|---|---|---|---|---|",
    `| \`orch spawn\`, no supervisor (the CLI does it all) | ${ms(spawnMedian)} | ${ms(percentile(spawnSamples, 95))} | floor ${ms(floorMedian)} (+${ms(spawnMedian - floorMedian)}) | floor + 150 ms: ${spawnMedian - floorMedian <= 150 ? "met" : "NOT met"} |`,
    `| \`orch spawn\` through a running supervisor | ${ms(median(viaSupervisor))} | ${ms(percentile(viaSupervisor, 95))} | floor ${ms(floorMedian)} (+${ms(median(viaSupervisor) - floorMedian)}) | floor + 150 ms: ${median(viaSupervisor) - floorMedian <= 150 ? "met" : "NOT met"} |`,
    `| floor: \`node -e 0\` + \`git worktree add\` + \`tmux new-session\` | ${ms(floorMedian)} | ${ms(percentile(floorSamples, 95))} | | |`,
    `| \`orch status --json\`, 200 records | ${ms(statusMedian)} | ${ms(percentile(statusSamples, 95))} | node ${ms(nodeMedian)} (${ratio(statusMedian, nodeMedian)}) | under 4×: ${statusMedian / nodeMedian < 4 ? "met" : "NOT met"} |`,
    `| \`orch batch-spawn\`, 20 issues | ${ms(batchMs)} | | 20 sequential spawns ${ms(sequentialMs)} (${ratio(batchMs, sequentialMs)}) | under 0.5×: ${batchMs / sequentialMs < 0.5 ? "met" : "NOT met"} |`
  ].join("\n")
  recordSection("Spawn (`bench/spawn.mjs`)", body)
  console.log(body)
} finally {
  server.close()
  removeSandbox(root, socket)
}
