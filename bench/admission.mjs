// Admission under a memory budget: 30 issues batch-spawned at once onto a machine whose memory is a control group
// limited to BUDGET (a container's limit), each agent holding SIZE of memory for HOLD seconds. orch must start what
// fits, queue the rest, start each queued issue as memory frees, and never let the group reach its limit (the
// kernel would kill an agent). Floor: the same 30 agents run back to back at the concurrency the budget allows
// (what an oracle that knew each agent's size would do), in the same run's timing.
// Needs a writable memory control group (cgroup v1 or v2), as root in a container.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { machine, ORCH, percentile, ratio, recordSection, spawnSandbox } from "./lib.mjs"

const MB = 1024 ** 2
const ISSUES = 20
const SIZE_MB = 300
// Long enough to be measured (a session is measured once it has run a minute).
const HOLD_S = 75
const BUDGET_MB = 4096
const RESERVE_MB = 1024

const own = readFileSync("/proc/self/cgroup", "utf8")
const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(own)?.[1]
const parent = v1 !== undefined ? join("/sys/fs/cgroup/memory", v1) : join("/sys/fs/cgroup", /^0::(.*)$/m.exec(own)?.[1] ?? "/")
const group = join(parent, `orch-bench-admission-${process.pid}`)
const files = v1 !== undefined
  ? { limit: "memory.limit_in_bytes", usage: "memory.usage_in_bytes", peak: "memory.max_usage_in_bytes" }
  : { limit: "memory.max", usage: "memory.current", peak: "memory.peak" }
mkdirSync(group)
writeFileSync(join(group, files.limit), String(BUDGET_MB * MB))
const read = (file) => Number(readFileSync(join(group, file), "utf8").trim())
const oomKills = () => {
  const text = readFileSync(join(group, v1 !== undefined ? "memory.oom_control" : "memory.events"), "utf8")
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0)
}

const sandbox = await spawnSandbox("orch-bench-admission-")
// The agent: holds SIZE_MB (touched, so it is resident) for HOLD_S, then ends its turn and exits.
const agent = join(sandbox.root, "agent.sh")
writeFileSync(
  agent,
  `#!/bin/sh\ncase "$ORCH_SESSION_ID" in *orchestrator) exec cat;; esac\nexec node -e 'const b = Buffer.alloc(${SIZE_MB} * 2 ** 20, 1); setTimeout(() => b.length, ${
    HOLD_S * 1000
  })'\n`,
  { mode: 0o755 }
)
const config = readFileSync(sandbox.env.ORCH_CONFIG_PATH, "utf8").replace("agentConfig: { command: 'cat' }", `agentConfig: { command: '${agent}' }`)
writeFileSync(sandbox.env.ORCH_CONFIG_PATH, config)
/** Every orch process runs inside the group, so the supervisor, tmux's server and the agents are all counted there. */
const orch = (...args) => {
  const result = spawnSync("sh", ["-c", `echo $$ > ${group}/cgroup.procs && exec "${process.execPath}" "${ORCH}" "$@"`, "orch", ...args], {
    env: sandbox.env,
    encoding: "utf8"
  })
  if (result.status !== 0) throw new Error(`orch ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return result.stdout
}
const events = () => {
  const file = join(sandbox.home, ".orchestrator", "events.jsonl")
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []
}

let peak = 0
let maxConcurrent = 0
try {
  orch("start", "app", "--detach", "--no-open")
  const started = Date.now()
  const batch = orch("batch-spawn", "app", ...Array.from({ length: ISSUES }, (_, i) => String(i + 1)))
  const queuedAtOnce = (batch.match(/queued as q-/g) ?? []).length
  const sampler = setInterval(() => {
    peak = Math.max(peak, read(files.usage))
    // The agents alive now: the group's processes that hold the memory.
    const agents = readFileSync(join(group, "cgroup.procs"), "utf8").trim().split("\n").filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("Buffer.alloc")
      } catch {
        return false
      }
    }).length
    maxConcurrent = Math.max(maxConcurrent, agents)
  }, 100)
  // Wait until every issue has run: its session spawned and its agent exited.
  for (;;) {
    const all = events()
    const spawned = all.filter((e) => e.type === "session.spawned" && e.sessionId !== "app-orchestrator").length
    const exited = all.filter((e) => e.type === "session.exited" && e.sessionId !== "app-orchestrator").length
    if (exited >= ISSUES) break
    if (Date.now() - started > 15 * 60_000) throw new Error(`not done after 15 minutes: ${spawned} spawned, ${exited} exited`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  clearInterval(sampler)
  const makespan = (Date.now() - started) / 1000
  const all = events()
  const waits = all.filter((e) => e.type === "queue.admitted").map((e) => e.data.waitedMs / 1000)
  const dropped = all.filter((e) => e.type === "queue.dropped").length
  // How long each agent really held its memory, for the floor: the mean time from spawn to exit.
  const spawnedAt = new Map(all.filter((e) => e.type === "session.spawned").map((e) => [e.sessionId, Date.parse(e.timestamp)]))
  const lifetimes = all.filter((e) => e.type === "session.exited" && spawnedAt.has(e.sessionId)).map((e) =>
    (Date.parse(e.timestamp) - spawnedAt.get(e.sessionId)) / 1000
  )
  const lifetime = lifetimes.reduce((a, b) => a + b, 0) / lifetimes.length
  const sizesFile = join(sandbox.home, ".orchestrator", "session-sizes.json")
  const measured = existsSync(sizesFile) ? JSON.parse(readFileSync(sizesFile, "utf8")).agents.command?.bytes ?? 0 : 0
  // The oracle's concurrency: the budget less the reserve, over what one agent really takes.
  const oracle = Math.max(1, Math.floor((BUDGET_MB - RESERVE_MB) * MB / (measured || SIZE_MB * MB)))
  const floor = Math.ceil(ISSUES / oracle) * lifetime
  const body = `
${ISSUES} issues batch-spawned at once; each agent holds ${SIZE_MB} MB for ${HOLD_S} s; orch and its sessions run in a memory
control group limited to ${BUDGET_MB} MB (\`bench/admission.mjs\`; ${machine()}). Admission keeps a ${RESERVE_MB} MB reserve; an agent's
expected size is 1 GB until the minute's measure, then what was measured; a session just started holds its expected size
until the first measure after its first minute (at most 2 minutes: its reservation, \`src/domain/reservation.ts\`).

| measure | value |
|---|---|
| started at once / queued by \`batch-spawn\` | ${ISSUES - queuedAtOnce} / ${queuedAtOnce} |
| every issue ran | ${lifetimes.length} of ${ISSUES} (${dropped} dropped) |
| peak memory of the group | ${Math.round(peak / MB)} MB of ${BUDGET_MB} MB (${((peak / (BUDGET_MB * MB)) * 100).toFixed(0)}%) |
| agents killed by the kernel (oom_kill) | ${oomKills()} |
| most agents alive at once | ${maxConcurrent} (the oracle's: ${oracle}) |
| measured size of one session | ${Math.round(measured / MB)} MB |
| queue wait per entry: p50 / p95 / max | ${percentile(waits, 50).toFixed(1)} s / ${percentile(waits, 95).toFixed(1)} s / ${Math.max(...waits).toFixed(1)} s |
| all done in | ${makespan.toFixed(0)} s, ${ratio(makespan, floor)} the oracle's ${floor.toFixed(0)} s (${Math.ceil(ISSUES / oracle)} waves of ${
    lifetime.toFixed(1)
  } s) |

Before reservations (commit 9833192) the same run had 9 agents alive at once against the oracle's 8 (each round read
memory afresh, and an agent that had just started was not counted), done in 0.97× the oracle's time. These agents take
all their memory at once and live 75 s, about as long as a reservation lasts, so each counts twice for most of its life:
the run never passes the oracle now, at the cost of its time. A real agent grows over minutes and lives far longer
than its reservation.
`
  console.log(body)
  recordSection("Admission under a memory budget", body)
} finally {
  try {
    orch("stop", "--kill-sessions")
  } catch (error) {
    console.error(String(error))
  }
  sandbox.close()
  // The group empties once its processes are gone.
  for (let i = 0; i < 50; i++) {
    try {
      rmdirSync(group)
      break
    } catch {
      execFileSync("sleep", ["0.1"])
    }
  }
}
