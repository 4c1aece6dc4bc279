// A rate limit for everyone: real Claude Code sessions at work under a supervisor, and the scripted model server
// refuses every conversation call (HTTP 429) for LIMIT_S seconds. Measured per session: how soon orch says it is
// `rate_limited` (from the first refusal), and how soon after the limit ends it says it works again, against the
// floor: the CLI's own next request after the reset (it retries by itself; orch cannot know before it does).
// Needs the pinned CLI in node_modules and a built dist/.
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { claudeProject, loadModelServer, machine, orchRunner, percentile, recordSection, waitFor } from "./lib.mjs"

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 4)
const LIMIT_S = 60
const CLAUDE = new URL("../node_modules/.bin/claude", import.meta.url).pathname
const KEY = "sk-ant-orch-bench-00000000000000000000000000"

const root = mkdtempSync(join(tmpdir(), "orch-bench-quota-"))
const { startModelServer } = await loadModelServer(root)
const { startEmulator } = await import(new URL("../dist/index.mjs", import.meta.url).href)
const { home, repo, origin } = claudeProject(root, KEY)
const socket = join(root, "tmux.sock")

const emulator = await startEmulator({ repos: [{ repo: "acme/app", gitDir: origin }] })
const model = await startModelServer()
// Each session works in many short steps, so it is in the middle of its work when the limit comes.
const step = (n) => ({ tools: [{ tool: "Bash", input: { command: `sleep 1; echo step-${n}`, description: `step ${n}` } }] })
model.script([{ when: "Work on issue", steps: [...Array.from({ length: 200 }, (_, n) => step(n)), { text: "Done." }] }])
const config = join(root, "orchestrator.yaml")
writeFileSync(
  config,
  JSON.stringify({
    port: 39000 + Math.floor(Math.random() * 1000),
    terminalPort: 38000 + Math.floor(Math.random() * 1000),
    directTerminalPort: 37000 + Math.floor(Math.random() * 1000),
    projects: {
      app: {
        repo: "acme/app",
        path: repo,
        agent: "coding-agent",
        agentConfig: {
          command: CLAUDE,
          permissions: "skip",
          env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: KEY, DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", IS_SANDBOX: "1" }
        },
        tracker: { plugin: "repohost", apiUrl: emulator.url },
        scm: { plugin: "repohost", apiUrl: emulator.url }
      }
    }
  })
)
const env = { PATH: process.env.PATH, HOME: home, ORCH_CONFIG_PATH: config, ORCH_TMUX_SOCKET: socket }
const orch = orchRunner(env)
const events = () => {
  const file = join(home, ".orchestrator", "events.jsonl")
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : []
}

try {
  await orch("start", "app", "--detach", "--no-open")
  const issues = Array.from({ length: SESSIONS }, () => emulator.addIssue("acme/app", { title: "Quota bench" }))
  await orch("batch-spawn", "app", ...issues.map(String))
  const workers = issues.map((_, i) => `app-${i + 1}`)
  const cwd = (id) => join(home, ".orchestrator", "worktrees", "app", id)
  // Every worker at work: several tool results of its own have reached the model.
  await waitFor("every worker at work", () => workers.every((id) => model.mainRequests(cwd(id)).length >= 3))
  const limitedFrom = Date.now()
  const limitedUntil = limitedFrom + LIMIT_S * 1000
  model.refuseUntil(limitedUntil, { status: 429, type: "rate_limit_error", message: "This request would exceed your account's rate limit." })
  // Each worker: when orch said rate_limited, when the CLI's next request got through, when orch said it works again.
  const results = []
  for (const id of workers) {
    const limited = await waitFor(`${id} rate_limited`, () => events().find((e) => e.type === "session.rate_limited" && e.sessionId === id), 180_000)
    const through = await waitFor(`${id}'s first request after the limit`, () => model.mainRequests(cwd(id)).find((r) => r.at >= limitedUntil), 300_000)
    const working = await waitFor(
      `${id} working again`,
      () => events().find((e) => e.sessionId === id && e.type === "session.working" && Date.parse(e.timestamp) >= Date.parse(limited.timestamp)),
      120_000
    )
    results.push({
      id,
      detected: (Date.parse(limited.timestamp) - limitedFrom) / 1000,
      cliBack: (through.at - limitedUntil) / 1000,
      orchBack: (Date.parse(working.timestamp) - through.at) / 1000
    })
  }
  const p = (key, q) => percentile(results.map((r) => r[key]), q).toFixed(1)
  const body = `
${SESSIONS} real Claude Code sessions (the pinned CLI) at work under one supervisor; the scripted model server refuses every
conversation call (HTTP 429, no retry-after) for ${LIMIT_S} s (\`bench/quota.mjs\`; ${machine()}). Claude Code retries by
itself (10 attempts, growing waits) and says nothing through its hooks meanwhile, so orch reads its screen once the
hooks have been silent for 3 s (LIMIT_LOOK_AFTER_MS), at the 5-s probe cycle.

| measure | p50 | max |
|---|---|---|
| first refusal → orch says \`rate_limited\` | ${p("detected", 50)} s | ${p("detected", 100)} s |
| the limit ends → the CLI's next request gets through (its own retry wait: the floor) | ${p("cliBack", 50)} s | ${p("cliBack", 100)} s |
| that request → orch says the session works again | ${p("orchBack", 50)} s | ${p("orchBack", 100)} s |

Per session: ${results.map((r) => `${r.id} ${r.detected.toFixed(1)} / ${r.cliBack.toFixed(1)} / ${r.orchBack.toFixed(1)} s`).join("; ")}.
`
  console.log(body)
  recordSection("Rate limits: detection and resumption", body)
} finally {
  await orch("stop", "--kill-sessions").catch((error) => console.error(String(error)))
  await emulator.close()
  await model.close()
  try {
    execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
  } catch {
    // none left
  }
  rmSync(root, { recursive: true, force: true })
}
