// The supervisor at rest: 50 and 100 live sessions (tmux + the `command` agent idling) under one supervisor.
// Over 60 s: RSS, CPU, and the processes it launches (tmux and git are wrapped by counting shims on its PATH,
// tmux by subcommand: the probe cycle is one `list-panes` per project every 5 s, which also tells each pane's last
// output time for quiescence); the sessions' activity at the end (the `cat` agent prints nothing, so quiescence
// makes it ready); then the delay from a change (an agent signal) to its event in the log, p50/p95.
// Memory twice: the largest RSS seen in the window (what the machine pays, heap slack included), and what the
// supervisor retains, read through its inspector after a forced full GC (bench/inspect.mjs): heap used, RSS then.
// Targets at 50 sessions (issue 22): at most 110 MB RSS, under 2% of one core, at most 15 process launches a minute.
// BENCH_ORCH=<dist/orch.mjs of another build> measures that build (BENCHMARKS.md is left alone);
// BENCH_SNAPSHOT_DIR=<dir> also writes a heap snapshot of the supervisor per size there; BENCH_ADMIT=1 queues every
// session so that the supervisor's admission starts each (by default they start before it, but what admission holds
// back, for the machine's load or its free memory, is queued and the supervisor starts it). To see why: BENCH_HEAP_TRACE=1 prints the supervisor's RSS and V8 heap spaces every 5 s from its start
// (on stderr), BENCH_ALLOC_PROFILE=<dir> writes what it allocated in the window (garbage included) as a .heapprofile.
// Both keep its inspector open from its start, which costs the process a little memory of its own.
import { execFileSync, spawnSync } from "node:child_process"
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { heapAfterGc, heapLine, inspectableOptions, openInspector, sampleAllocations } from "./inspect.mjs"
import { freePort, machine, ms, ORCH, percentile, recordSection, removeSandbox } from "./lib.mjs"

const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 60)
const SIZES = (process.env.BENCH_SIZES ?? "50,100").split(",").map(Number)
const CLK_TCK = 100
const BUILD = process.env.BENCH_ORCH ?? ORCH
const SNAPSHOTS = process.env.BENCH_SNAPSHOT_DIR
const ADMIT = process.env.BENCH_ADMIT === "1"
const HEAP_TRACE = process.env.BENCH_HEAP_TRACE === "1"
const ALLOC_PROFILES = process.env.BENCH_ALLOC_PROFILE
const MB = 1024 * 1024
const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec))

const measure = async (size) => {
  const root = mkdtempSync(join(tmpdir(), "orch-bench-sup-"))
  const home = join(root, "home")
  const socket = join(root, "tmux.sock")
  const counter = join(root, "launches.log")
  const shims = join(root, "shims")
  mkdirSync(shims)
  for (const tool of ["tmux", "git"]) {
    const real = execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim()
    // The supervisor runs `tmux -u -S <socket> <subcommand> …`: $4 is the subcommand.
    writeFileSync(join(shims, tool), `#!/bin/sh\necho ${tool === "tmux" ? "tmux $4" : tool} >> ${counter}\nexec ${real} "$@"\n`)
    chmodSync(join(shims, tool), 0o755)
  }
  const repo = join(root, "app")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", join(root, "origin.git")])
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  execFileSync("git", ["-C", repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "--allow-empty", "-m", "init"])
  execFileSync("git", ["-C", repo, "remote", "add", "origin", join(root, "origin.git")])
  execFileSync("git", ["-C", repo, "push", "-q", "origin", "main"])
  const config = join(root, "orchestrator.yaml")
  writeFileSync(
    config,
    `port: ${await freePort()}\nterminalPort: ${await freePort()}\ndirectTerminalPort: ${await freePort()}\ndefaults:\n  sessionMemoryMb: 20\nprojects:\n  app:\n    repo: acme/app\n    path: ${repo}\n    agent: command\n    agentConfig: { command: cat }\n    tracker: { plugin: repohost, apiUrl: "http://127.0.0.1:9" }\n`
  )
  const env = { ...process.env, HOME: home, ORCH_TMUX_SOCKET: socket, ORCH_CONFIG_PATH: config }
  delete env.TMUX
  const orch = (args, extra = {}) => {
    const result = spawnSync(process.execPath, [BUILD, ...args], { env: { ...env, ...extra }, encoding: "utf8" })
    if (result.status !== 0) throw new Error(`orch ${args.join(" ")}: ${result.stderr}`)
    return result.stdout
  }
  try {
    // The sessions start before the supervisor (batch-spawn; what admission holds back is queued and the supervisor
    // starts it), or with BENCH_ADMIT=1 all are queued and the supervisor's admission starts each.
    for (let i = 0; i < size; i += 25) {
      orch([ADMIT ? "queue" : "batch-spawn", ...(ADMIT ? ["add"] : []), "app", ...Array.from({ length: Math.min(25, size - i) }, (_, k) => String(i + k + 1))])
    }
    const sessionsDir = join(home, ".orchestrator", "sessions", "app")
    const records = () =>
      (existsSync(sessionsDir) ? readdirSync(sessionsDir) : []).filter((id) => existsSync(join(sessionsDir, id, "session.json")) && id !== "app-orchestrator")
        .map((id) => JSON.parse(readFileSync(join(sessionsDir, id, "session.json"), "utf8")))
    const started = () => records().filter((r) => r.runtime !== null && r.status !== "spawning").length
    // What the supervisor's admission starts: its spawns are work the supervisor's heap goes through before it rests.
    const admitted = size - started()
    const inspectPort = await freePort()
    orch(["start", "app", "--detach"], { PATH: `${shims}:${process.env.PATH}`, NODE_OPTIONS: inspectableOptions(inspectPort) })
    const { pid } = JSON.parse(readFileSync(join(home, ".orchestrator", "supervisor.json"), "utf8"))
    const inspector = HEAP_TRACE || ALLOC_PROFILES ? await openInspector(pid, inspectPort) : undefined
    const since = Date.now()
    const trace = HEAP_TRACE
      ? setInterval(() => heapLine(inspector).then((line) => console.error(`${size}: ${((Date.now() - since) / 1000).toFixed(0)} s ${line}`), () => {}), 5000)
      : undefined
    // At rest means every issue started: what admission queued (the machine's load, say) is admitted first.
    for (let waited = 0; started() < size; waited += 1) {
      if (waited > 600) throw new Error(`only ${records().length} of ${size} sessions started in 10 minutes`)
      await sleep(1000)
    }
    await sleep(10_000) // adoption and the first cycles
    const cpu = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ").slice(11, 13).reduce((a, b) => a + Number(b), 0)
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024
    writeFileSync(counter, "")
    if (HEAP_TRACE) console.error(`${size}: ${((Date.now() - since) / 1000).toFixed(0)} s the window starts`)
    const sampling = ALLOC_PROFILES ? await sampleAllocations(inspector) : undefined
    const cpuStart = cpu()
    let rssMax = 0
    for (let t = 0; t < WINDOW_S; t += 5) {
      await sleep(5000)
      rssMax = Math.max(rssMax, rss())
    }
    const cpuPercent = ((cpu() - cpuStart) / CLK_TCK / WINDOW_S) * 100
    if (sampling) writeFileSync(join(ALLOC_PROFILES, `supervisor-${size}.heapprofile`), JSON.stringify(await sampling.stop()))
    clearInterval(trace)
    inspector?.close()
    const retained = await heapAfterGc(pid, inspectPort, SNAPSHOTS && join(SNAPSHOTS, `supervisor-${size}.heapsnapshot`))
    const afterGc = { rss: retained.rss / MB, heapUsed: retained.heapUsed / MB, heapTotal: retained.heapTotal / MB, external: retained.external / MB }
    const launches = readFileSync(counter, "utf8").trim().split("\n").filter(Boolean)
    const perMinute = (launches.length / WINDOW_S) * 60
    const byTool = Object.entries(launches.reduce((acc, tool) => ({ ...acc, [tool]: (acc[tool] ?? 0) + 1 }), {}))
    const activities = Object.entries(
      records().map((record) => record.activity)
        .reduce((acc, activity) => ({ ...acc, [activity]: (acc[activity] ?? 0) + 1 }), {})
    )

    // Change → event: an agent signal (a hook line) appended to a session's activity file, until its event is in the log.
    const events = join(home, ".orchestrator", "events.jsonl")
    const delays = []
    const ids = records().map((record) => record.sessionId)
    for (let i = 0; i < 20; i++) {
      const session = ids[Math.floor(i / 2) % ids.length]
      const activity = join(home, ".orchestrator", "sessions", "app", session, "activity.jsonl")
      // The sessions are ready by now (quiescence): a tool call makes one working, its Stop ready again.
      const [event, expected] = i % 2 === 0 ? ["PreToolUse", "session.working"] : ["Stop", "session.ready"]
      const before = readFileSync(events, "utf8").length
      const start = process.hrtime.bigint()
      appendFileSync(activity, `${JSON.stringify({ event, ts: new Date().toISOString() })}\n`)
      for (;;) {
        const fresh = readFileSync(events, "utf8").slice(before)
        if (fresh.includes(`"type":"${expected}","sessionId":"${session}"`)) break
        if (Number(process.hrtime.bigint() - start) > 10e9) throw new Error(`no ${expected} for ${session}`)
        await sleep(2)
      }
      delays.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
    return { size, admitted, rssMax, afterGc, cpuPercent, perMinute, byTool, activities, delays }
  } finally {
    try {
      orch(["stop"])
    } catch {}
    removeSandbox(root, socket)
  }
}

for (const dir of [SNAPSHOTS, ALLOC_PROFILES]) if (dir) mkdirSync(dir, { recursive: true })
const results = []
for (const size of SIZES) {
  const result = await measure(size)
  results.push(result)
  console.log(JSON.stringify(result))
}
const fifty = results.find((r) => r.size === 50)
const body = [
  `${machine()}; ${WINDOW_S} s at rest per size, ${new Date().toISOString().slice(0, 10)}. Agent: \`command\` (cat), runtime tmux.`,
  "",
  "| live sessions (started by its admission) | RSS (max) | after a full GC: RSS · heap used / total · external | CPU (one core) | process launches / min (in the window) | activity at the end | change → event p50 | p95 |",
  "|---|---|---|---|---|---|---|---|",
  ...results.map((r) =>
    `| ${r.size} (${r.admitted}) | ${r.rssMax.toFixed(0)} MB | ${r.afterGc.rss.toFixed(0)} MB · ${r.afterGc.heapUsed.toFixed(1)} / ${
      r.afterGc.heapTotal.toFixed(0)
    } MB · ${r.afterGc.external.toFixed(1)} MB | ${r.cpuPercent.toFixed(2)}% | ${r.perMinute.toFixed(1)} (${
      r.byTool.map(([t, n]) => `${t} ${n}`).join(", ") || "none"
    }) | ${r.activities.map(([a, n]) => `${n} ${a}`).join(", ")} | ${ms(percentile(r.delays, 50))} | ${ms(percentile(r.delays, 95))} |`
  ),
  "",
  `The probe cycle runs every 5 s: ${
    WINDOW_S / 5
  } cycles in the window, each one \`tmux list-panes\` for the whole project whatever its size. That one call also carries each pane's last output time (\`#{window_activity}\`), from which quiescence makes a \`command\` agent ready once it has printed nothing for \`quietMs\`, and idle after \`readyThresholdMs\` (before, such sessions stayed active forever and were all declared stuck after 10 minutes). No screen is captured for them.`,
  "",
  fifty
    ? `Targets at 50 sessions (issue 22): RSS at most 110 MB — ${fifty.rssMax <= 110 ? "met" : "NOT met"}; CPU under 2% — ${
      fifty.cpuPercent < 2 ? "met" : "NOT met"
    }; at most 15 launches a minute — ${
      fifty.perMinute <= 15 ? "met" : "NOT met"
    }. For comparison, the tool users would otherwise run used 29% of a core, 107 MB and about 960 launches a minute at 50 idle sessions.`
    : ""
].join("\n")
if (process.env.BENCH_ORCH === undefined) recordSection("Supervisor at rest (`bench/supervisor.mjs`)", body)
console.log(body)
