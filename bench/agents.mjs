// The real Claude Code CLI under a supervisor, against the scripted model server and the repohost emulator:
// (1) from `orch spawn` to the agent's first tool call (its result reaching the model), against the floor of the
//     same CLI started bare (`claude -p` with the same task) to its first tool call;
// (2) from a CI failure (the emulator's check completing) to the ci-failed message reaching the model, against
//     the repohost poll interval that bounds how soon orch can know.
// p50 and p95 over BENCH_RUNS runs (default 20). Needs the pinned CLI in node_modules and a built dist/.
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { claudeProject, loadModelServer, machine, ms, orchRunner, percentile, recordSection, waitFor as waitUntil } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const POLL_MS = 1000
const CLAUDE = new URL("../node_modules/.bin/claude", import.meta.url).pathname
const KEY = "sk-ant-orch-bench-00000000000000000000000000"

const root = mkdtempSync(join(tmpdir(), "orch-bench-agents-"))
/** Polls every 10 ms: these waits are the measured latencies. */
const waitFor = (what, probe, timeoutMs = 60_000) => waitUntil(what, probe, timeoutMs, 10)
const { startModelServer } = await loadModelServer(root)
const { startEmulator } = await import(new URL("../dist/index.mjs", import.meta.url).href)

const { home, repo, origin } = claudeProject(root, KEY)
const socket = join(root, "tmux.sock")

const ciFailedAt = new Map()
const emulator = await startEmulator({
  repos: [{ repo: "acme/app", gitDir: origin }],
  ci: ({ branch, message }) => {
    if (!message.includes("[fail]")) return "success"
    if (!ciFailedAt.has(branch)) ciFailedAt.set(branch, Date.now())
    return "failure"
  }
})
const model = await startModelServer()
const agentEnv = {
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: KEY,
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  IS_SANDBOX: "1"
}
const config = join(root, "orchestrator.yaml")
writeFileSync(
  config,
  JSON.stringify({
    port: 39000 + Math.floor(Math.random() * 1000),
    pollIntervalMs: POLL_MS,
    projects: {
      app: {
        repo: "acme/app",
        path: repo,
        agent: "coding-agent",
        agentConfig: { command: CLAUDE, permissions: "skip", env: agentEnv },
        tracker: { plugin: "repohost", apiUrl: emulator.url },
        scm: { plugin: "repohost", apiUrl: emulator.url }
      }
    }
  })
)
const env = { PATH: process.env.PATH, HOME: home, ORCH_CONFIG_PATH: config, ORCH_TMUX_SOCKET: socket }
const orch = orchRunner(env)

const scriptFor = (issues) =>
  model.script(issues.flatMap((issue) => [
    {
      when: `issue #${issue} of acme/app`,
      steps: [
        { tools: [{ tool: "Bash", input: { command: "echo first-tool", description: "first" } }] },
        {
          tools: [{
            tool: "Bash",
            input: {
              command:
                `git commit -q --allow-empty -m 'wip [fail]' && git push -q origin HEAD:feat/${issue} && curl -sf -X POST ${emulator.url}/repos/acme/app/pulls -d '{"head":"feat/${issue}","base":"main","title":"Bench ${issue}"}' >/dev/null`,
              description: "pr"
            }
          }]
        },
        { text: "Opened the pull request." }
      ]
    }
  ]))

const spawnToTool = []
const ciToModel = []
const floor = []
try {
  await orch("start", "app", "--detach", "--no-open")
  const issues = Array.from({ length: RUNS }, () => emulator.addIssue("acme/app", { title: "Bench issue" }))
  scriptFor(issues)
  for (const issue of issues) {
    const cwd = join(home, ".orchestrator", "worktrees", "app", `app-${issue}`)
    const start = Date.now()
    await orch("spawn", "app", String(issue))
    const tool = await waitFor(
      "the first tool result",
      () => model.mainRequests().find((r) => r.toolResults.some((t) => t.includes("first-tool")) && r.userTexts[0]?.includes(`issue #${issue} `))
    )
    spawnToTool.push(tool.at - start)
    const reached = await waitFor(
      "the ci-failed message",
      () => model.mainRequests(cwd).find((r) => r.userTexts.some((t) => t.includes("CI is failing on your pull request")))
    )
    ciToModel.push(reached.at - ciFailedAt.get(`feat/${issue}`))
    await orch("session", "kill", `app-${issue}`)
  }
  await orch("stop", "--kill-sessions")

  // The floor: the same CLI, started bare with the same task, to its first tool call.
  const floorDir = join(root, "floor")
  execFileSync("git", ["clone", "-q", origin, floorDir])
  model.script([{ when: "FLOOR-TASK", steps: [{ tools: [{ tool: "Bash", input: { command: "echo floor-tool", description: "first" } }] }, { text: "Done." }] }])
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      bypassPermissionsModeAccepted: true,
      customApiKeyResponses: { approved: [KEY.slice(-20)] },
      projects: { [repo]: { hasTrustDialogAccepted: true }, [floorDir]: { hasTrustDialogAccepted: true } }
    })
  )
  for (let i = 0; i < RUNS; i++) {
    const before = model.requests.length
    const start = Date.now()
    // Asynchronously: the model server answering it lives in this process.
    await new Promise((resolve, reject) => {
      const child = spawn(CLAUDE, ["-p", "--dangerously-skip-permissions", `FLOOR-TASK ${i}`], {
        cwd: floorDir,
        env: { ...process.env, ...agentEnv, HOME: home },
        stdio: "ignore"
      })
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`claude -p exited ${code}`))))
    })
    const tool = model.requests.slice(before).find((r) => r.toolResults.some((t) => t.includes("floor-tool")))
    floor.push(tool.at - start)
  }

  const row = (name, samples, against) => `| ${name} | ${ms(percentile(samples, 50))} | ${ms(percentile(samples, 95))} | ${against} |`
  const body = [
    `${machine()}; ${RUNS} runs, ${
      new Date().toISOString().slice(0, 10)
    }. Claude Code 2.1.328 (the pinned devDependency) in tmux under a supervisor, answering from the scripted model server; PRs and CI on the repohost emulator (poll every ${POLL_MS} ms).`,
    "",
    "| measure | p50 | p95 | against |",
    "|---|---|---|---|",
    row(
      "`orch spawn` → the agent's first tool call (its result at the model)",
      spawnToTool,
      `floor: bare \`claude -p\` to its first tool call, p50 ${ms(percentile(floor, 50))} (orch adds ${
        ms(percentile(spawnToTool, 50) - percentile(floor, 50))
      })`
    ),
    row(
      "CI failure (check completed) → the ci-failed message at the model",
      ciToModel,
      `the poll interval, ${POLL_MS} ms, bounds when orch can know (${(percentile(ciToModel, 50) / POLL_MS).toFixed(2)}×)`
    ),
    row("floor: bare `claude -p` → first tool call", floor, "")
  ].join("\n")
  recordSection("Agents (`bench/agents.mjs`)", body)
  console.log(body)
} finally {
  try {
    execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
  } catch {}
  await model.close()
  await emulator.close()
  rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
}
