// Reaction latency: from a CI failure at the repohost (the push whose check fails) to the ci-failed message in
// the agent's terminal, through a real supervisor, tmux and the emulator. Two ways the news arrives:
//   polling — no webhooks, pollIntervalMs = POLL_MS: target within the poll interval + 1 s;
//   webhook — the emulator delivers signed webhooks to the dashboard port: target under 1 s.
// Each sample is its own session (a PR gets one failure), so retries and escalation never get in the way.
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort, machine, ms, ORCH, percentile, recordSection } from "./lib.mjs"

const { startEmulator } = await import(new URL("../dist/index.mjs", import.meta.url).href)
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 8)
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 5000)
const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec))
const exec = promisify(execFile)

const measure = async (mode) => {
  const failedAt = new Map()
  const root = mkdtempSync(join(tmpdir(), "orch-bench-react-"))
  const origin = join(root, "origin.git")
  const repo = join(root, "app")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  execFileSync("git", ["-C", repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "--allow-empty", "-m", "init"])
  execFileSync("git", ["-C", repo, "remote", "add", "origin", origin])
  execFileSync("git", ["-C", repo, "push", "-q", "origin", "main"])
  const [port, terminalPort, directTerminalPort] = [await freePort(), await freePort(), await freePort()]
  const secret = "bench-secret"
  const emulator = await startEmulator({
    repos: [{ repo: "acme/app", gitDir: origin }],
    // The moment CI fails at the emulator (it completes at once) is where each sample starts.
    ci: ({ message, branch }) => {
      if (!message.includes("[fail]")) return "success"
      failedAt.set(branch, performance.now())
      return "failure"
    },
    ...(mode === "webhook" ? { webhooks: [{ url: `http://127.0.0.1:${port}/webhooks/repohost`, secret }] } : {})
  })
  const socket = join(root, "tmux.sock")
  const config = join(root, "orchestrator.yaml")
  writeFileSync(
    config,
    [
      `port: ${port}`,
      `terminalPort: ${terminalPort}`,
      `directTerminalPort: ${directTerminalPort}`,
      `pollIntervalMs: ${mode === "webhook" ? 600000 : POLL_MS}`,
      "defaults: { notifiers: [hosted] }",
      "projects:",
      "  app:",
      "    repo: acme/app",
      `    path: ${repo}`,
      "    agent: command",
      "    agentConfig: { command: 'while IFS= read -r line; do echo \"got: $line\"; done' }",
      `    tracker: { plugin: repohost, apiUrl: "${emulator.url}", token: bench }`,
      `    scm: { plugin: repohost, apiUrl: "${emulator.url}", token: bench, webhookSecret: "${secret}" }`
    ].join("\n") + "\n"
  )
  const env = { ...process.env, HOME: join(root, "home"), ORCH_TMUX_SOCKET: socket, ORCH_CONFIG_PATH: config }
  delete env.TMUX
  // Async: the emulator lives in this process and must keep answering while orch runs.
  const orch = (args) => exec(process.execPath, [ORCH, ...args], { env })
  const screen = (session) => {
    try {
      return execFileSync("tmux", ["-S", socket, "capture-pane", "-p", "-J", "-t", `=${session}:`], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    } catch {
      return ""
    }
  }
  const latencies = []
  const pushes = []
  try {
    for (let i = 1; i <= SAMPLES; i++) emulator.addIssue("acme/app", { title: `Issue ${i}` })
    await orch(["start", "app", "--detach", "--no-open"])
    await orch(["batch-spawn", "app", ...Array.from({ length: SAMPLES }, (_, i) => String(i + 1))])
    for (let i = 1; i <= SAMPLES; i++) {
      const worktree = join(root, "home", ".orchestrator", "worktrees", "app", `app-${i}`)
      const commit = (message) => exec("git", ["-C", worktree, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "--allow-empty", "-m", message])
      await commit("work")
      await exec("git", ["-C", worktree, "push", "-q", "origin", `HEAD:feat/${i}`])
      await fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: `feat/${i}`, base: "main", title: `PR ${i}` }) })
      // Let the supervisor see the green PR first, at a random point of the poll cycle.
      await sleep((mode === "webhook" ? 300 : POLL_MS + 500) + Math.random() * 500)
      await commit("break it [fail]")
      const pushStart = performance.now()
      await exec("git", ["-C", worktree, "push", "-q", "origin", `HEAD:feat/${i}`])
      pushes.push(performance.now() - pushStart)
      while (!screen(`app-${i}`).includes("got: CI is failing")) {
        if (performance.now() - pushStart > POLL_MS * 3 + 10_000) throw new Error(`app-${i}: no ci-failed message`)
        await sleep(10)
      }
      latencies.push(performance.now() - failedAt.get(`feat/${i}`))
    }
  } finally {
    await orch(["stop", "--kill-sessions"]).catch(() => {})
    await emulator.close()
    rmSync(root, { recursive: true, force: true })
  }
  return { latencies, pushes }
}

const webhook = await measure("webhook")
const polling = await measure("polling")
const row = (name, { latencies: values, pushes }, target, met) =>
  `| ${name} | ${values.length} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 95))} | ${ms(Math.max(...values))} | ${
    ms(percentile(pushes, 50))
  } | ${target} | ${met ? "met" : "NOT met"} |`
const body = [
  `${machine()}, ${new Date().toISOString().slice(0, 10)}. From the moment CI fails at the emulator (during the push, when its`,
  "post-receive hook reports the new commit) to the ci-failed message on the agent's tmux screen (captured every 10 ms); real",
  "supervisor, `command` agent, one session per sample.",
  "",
  "| path | samples | p50 | p95 | max | the git push, for scale (p50) | target | |",
  "|---|---|---|---|---|---|---|---|",
  row("webhook (signed delivery to the dashboard port)", webhook, "< 1 s", Math.max(...webhook.latencies) < 1000),
  row(`polling (pollIntervalMs ${POLL_MS}, no webhooks)`, polling, `< ${ms(POLL_MS + 1000)}`, Math.max(...polling.latencies) < POLL_MS + 1000),
  "",
  "The webhook path includes a 50 ms wait for the rest of a burst of deliveries before the supervisor looks at the PR.",
  "The polling samples spread over the poll interval by design (the failure lands at a random point of the cycle); what",
  "matters is the bound: the message arrives within one poll interval plus the time to deliver it."
].join("\n")
recordSection("Reaction latency (`bench/reaction-latency.mjs`)", body)
console.log(body)
