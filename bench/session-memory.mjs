// What one agent session costs a host in memory, the figure placement reserves per session: BENCH_SESSIONS
// (default 4) real Claude Code CLIs (the pinned devDependency), each in tmux in a repository of its own, given a
// task against the scripted model server (a Bash tool call, then an answer), then measured idle: the RSS and PSS
// of each session's process tree (tmux pane and everything under it), and the drop of the machine's MemAvailable
// per session (what headroom sees), against the same machine before they started.
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadModelServer, machine, median, recordSection, sleep, waitFor } from "./lib.mjs"

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 4)
const SETTLE_MS = 5000
const CLAUDE = new URL("../node_modules/.bin/claude", import.meta.url).pathname
const KEY = "sk-ant-orch-bench-00000000000000000000000000"

const root = mkdtempSync(join(tmpdir(), "orch-bench-memory-"))
const socket = join(root, "tmux.sock")
const { startModelServer } = await loadModelServer(root)

const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0)
const memAvailableMb = () => kb(readFileSync("/proc/meminfo", "utf8"), "MemAvailable") / 1024
const children = () => {
  const byParent = new Map()
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1])
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(pid)])
    } catch {
      // exited while listed
    }
  }
  return byParent
}
/** RSS and PSS (MB) of `pid` and everything under it. */
const treeMemory = (pid) => {
  const byParent = children()
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) tree.push(...(byParent.get(tree[i]) ?? []))
  let rss = 0
  let pss = 0
  for (const member of tree) {
    try {
      const rollup = readFileSync(`/proc/${member}/smaps_rollup`, "utf8")
      rss += kb(rollup, "Rss")
      pss += kb(rollup, "Pss")
    } catch {
      // exited while measured
    }
  }
  return { processes: tree.length, rssMb: rss / 1024, pssMb: pss / 1024 }
}

const model = await startModelServer([{
  when: "Memory task",
  steps: [
    { tools: [{ tool: "Bash", input: { command: "ls -la && git log --oneline | head -5", description: "look around" } }] },
    { text: "Done: the repository has one commit." }
  ]
}])
const home = join(root, "home")
mkdirSync(home)
const repos = Array.from({ length: SESSIONS }, (_, i) => {
  const repo = join(root, `app-${i}`)
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  writeFileSync(join(repo, "README.md"), "# app\n")
  execFileSync("git", ["-C", repo, "add", "."])
  execFileSync("git", ["-C", repo, "-c", "user.email=b@example.com", "-c", "user.name=B", "commit", "-qm", "initial"])
  return repo
})
writeFileSync(
  join(home, ".claude.json"),
  JSON.stringify({
    hasCompletedOnboarding: true,
    bypassPermissionsModeAccepted: true,
    customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
    projects: Object.fromEntries(repos.map((repo) => [repo, { hasTrustDialogAccepted: true }]))
  })
)
const env = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: "C.UTF-8",
  TERM: "xterm-256color",
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: KEY,
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  IS_SANDBOX: "1"
}
const tmux = (...args) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", env })

try {
  // The tmux server first, so the baseline holds it as the sessions will.
  tmux("new-session", "-d", "-s", "idle", "cat")
  await sleep(SETTLE_MS)
  const before = memAvailableMb()
  for (const [i, repo] of repos.entries()) {
    tmux("new-session", "-d", "-s", `m-${i}`, "-c", repo, "-x", "200", "-y", "50", "--", CLAUDE, "--dangerously-skip-permissions", `Memory task ${i}`)
  }
  // Each answered: its second conversation call (after the tool's result) was served.
  for (const repo of repos) await waitFor(`the agent in ${repo} to finish its task`, () => model.mainRequests(repo).length >= 2)
  await sleep(SETTLE_MS)
  const after = memAvailableMb()
  const panes = new Map(
    tmux("list-panes", "-a", "-F", "#{session_name} #{pane_pid}").trim().split("\n").map((line) => line.split(" ")).map(([name, pid]) => [name, Number(pid)])
  )
  const trees = repos.map((_, i) => treeMemory(panes.get(`m-${i}`)))
  const round = (value) => `${Math.round(value)} MB`
  const body = `Measured by \`bench/session-memory.mjs\` (${machine()}; ${new Date().toISOString().slice(0, 10)}): ${SESSIONS} Claude Code
${
    execFileSync(CLAUDE, ["--version"], { encoding: "utf8", env }).trim()
  } sessions in tmux, each in a repository of its own, after a short task against the scripted
model server (one Bash tool call, then an answer), ${SETTLE_MS / 1000} s idle. Per session:

| measure | median | max |
|---|---|---|
| RSS of the session's process tree | ${round(median(trees.map((t) => t.rssMb)))} | ${round(Math.max(...trees.map((t) => t.rssMb)))} |
| PSS of the session's process tree (shared pages split) | ${round(median(trees.map((t) => t.pssMb)))} | ${round(Math.max(...trees.map((t) => t.pssMb)))} |
| MemAvailable drop of the machine, per session (what headroom sees; other work on the machine moves it) | ${round((before - after) / SESSIONS)} | |

This is a floor: a fresh conversation of a few messages. Sessions grow with their conversation and the tools they
run (peers report 0.5–2 GB per Claude Code session on real work), so the reserve placement keeps per session must
sit well above it.`
  recordSection("Session memory (`bench/session-memory.mjs`)", body)
  console.log(body)
} finally {
  spawnSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
  await model.close()
  rmSync(root, { recursive: true, force: true })
}
