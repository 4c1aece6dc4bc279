// tracker-b's cost at spawn: `orch spawn <project> ENG-n` with issues from Linear against the same spawn with
// issues from GitHub (repohost), interleaved. Both stand-ins answer after LATENCY_MS, like an API across the
// internet. A repohost lookup overlaps the worktree's creation; tracker-b's cannot, since the branch is Linear's
// branchName. Target: tracker-b spawn within repohost spawn + one round trip (LATENCY_MS), one request each.
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { machine, median, ms, ORCH, percentile, recordSection, removeSandbox } from "./lib.mjs"

const run = promisify(execFile)
const RUNS = Number(process.env.BENCH_RUNS ?? 8)
const LATENCY_MS = 150
const root = mkdtempSync(join(tmpdir(), "orch-bench-tracker-b-"))
const socket = join(root, "tmux.sock")
const env = {
  ...process.env,
  HOME: join(root, "home"),
  ORCH_TMUX_SOCKET: socket,
  ORCH_CONFIG_PATH: join(root, "orchestrator.yaml"),
  LINEAR_API_KEY: "lin_api_bench"
}
delete env.TMUX

const makeRepo = (name) => {
  const origin = join(root, `${name}.git`)
  const repo = join(root, name)
  const git = (...args) => execFileSync("git", ["-C", repo, ...args], { stdio: "ignore" })
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  writeFileSync(join(repo, "README.md"), `# ${name}\n`)
  git("add", ".")
  git("-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "init")
  git("remote", "add", "origin", origin)
  git("push", "-q", "origin", "main")
  return repo
}

const requests = { github: 0, linear: 0 }
const server = createServer((req, res) => {
  let body = ""
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () =>
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" })
      if (req.url === "/graphql") {
        requests.linear++
        const id = JSON.parse(body).variables.id
        res.end(JSON.stringify({
          data: {
            issue: {
              identifier: id,
              title: `Issue ${id}`,
              description: "Do it.",
              url: `https://linear.app/acme/issue/${id}`,
              branchName: `bench/${id.toLowerCase()}`,
              state: { name: "Todo", type: "unstarted" },
              team: { id: "t", key: "ENG" },
              labels: { nodes: [] }
            }
          }
        }))
      } else {
        requests.github++
        const n = /issues\/(\d+)$/.exec(req.url ?? "")?.[1]
        res.end(JSON.stringify({ number: Number(n), title: `Issue ${n}`, body: "Do it.", labels: [], html_url: `https://example/${n}` }))
      }
    }, LATENCY_MS))
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const api = `http://127.0.0.1:${server.address().port}`
writeFileSync(
  env.ORCH_CONFIG_PATH,
  [
    "projects:",
    "  gh:",
    "    repo: acme/gh",
    `    path: ${makeRepo("gh")}`,
    "    agent: command",
    "    agentConfig: { command: 'cat' }",
    `    tracker: { plugin: repohost, apiUrl: "${api}" }`,
    "  lin:",
    "    repo: acme/lin",
    `    path: ${makeRepo("lin")}`,
    "    agent: command",
    "    agentConfig: { command: 'cat' }",
    `    tracker: { plugin: tracker-b, teamId: ENG, apiKey: "\${LINEAR_API_KEY}", apiUrl: "${api}/graphql" }`
  ].join("\n")
)

const spawn = async (project, issue) => {
  const start = process.hrtime.bigint()
  await run(process.execPath, [ORCH, "spawn", project, issue], { env })
  return Number(process.hrtime.bigint() - start) / 1e6
}

try {
  await spawn("gh", "1") // warm-up: file cache, the tmux server
  await spawn("lin", "ENG-1")
  const github = []
  const linear = []
  for (let i = 2; i < RUNS + 2; i++) {
    github.push(await spawn("gh", String(i)))
    linear.push(await spawn("lin", `ENG-${i}`))
  }
  const extra = median(linear) - median(github)
  const body = [
    `${machine()}; ${RUNS} spawns each, interleaved, ${
      new Date().toISOString().slice(0, 10)
    }. Agent: \`command\` (cat); both trackers are local stand-ins answering after ${LATENCY_MS} ms.`,
    "",
    "| measure | median | p95 | against | target |",
    "|---|---|---|---|---|",
    `| \`orch spawn lin ENG-n\` (tracker-b, Linear's branchName) | ${ms(median(linear))} | ${ms(percentile(linear, 95))} | repohost spawn ${
      ms(median(github))
    } (+${ms(extra)}) | within + ${LATENCY_MS} ms (one round trip): ${extra <= LATENCY_MS ? "met" : "NOT met"} |`,
    `| \`orch spawn gh n\` (repohost, lookup overlapped with the worktree) | ${ms(median(github))} | ${ms(percentile(github, 95))} | | |`,
    `| requests per spawn | tracker-b ${(requests.linear / (RUNS + 1)).toFixed(2)}, repohost ${(requests.github / (RUNS + 1)).toFixed(2)} | | | 1 each: ${
      requests.linear === RUNS + 1 && requests.github === RUNS + 1 ? "met" : "NOT met"
    } |`
  ].join("\n")
  recordSection("tracker-b spawn (`bench/tracker-b.mjs`)", body)
  console.log(body)
} finally {
  server.close()
  removeSandbox(root, socket)
}
