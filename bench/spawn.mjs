// Spawn speed: `orch spawn` against its floor (bare node start + `git worktree add` + `tmux new-session`),
// `orch status --json` over 200 records against bare node, and `batch-spawn` of 10 issues through a running
// supervisor. Targets (issue 22): spawn through the supervisor within floor + 150 ms, without one floor + 300 ms;
// the batch of 10 within 0.6 s (median of BENCH_BATCH_RUNS batches, 5 by default, with their range in the p95 column),
// counted only when all 10 started (a batch admission queues is said, not timed as one).
// Spawn is measured twice: by the CLI alone (it loads Effect, the command tree and the config: ~300 ms before any
// work), and through a running supervisor (the CLI's fast path: a few lines of node:net, the work done warm).
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { machine, median, ms, ORCH, percentile, ratio, recordSection, spawnSandbox } from "./lib.mjs"

const run = promisify(execFile)
const RUNS = Number(process.env.BENCH_RUNS ?? 10)
const BATCH_RUNS = Number(process.env.BENCH_BATCH_RUNS ?? 5)
const { root, socket, home, env, repo, close } = await spawnSandbox("orch-bench-spawn-")

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
  execFileSync(process.execPath, [ORCH, "stop", "--kill-sessions"], { env })

  // batch-spawn of 10 through a supervisor, BATCH_RUNS times, each in a sandbox of its own: the sessions above (and
  // the 200 copied records, each "working") would otherwise hold admission's memory budget, and the batch would queue
  // instead of starting. Only batches whose 10 all started are timed.
  const batchSamples = []
  const queuedReasons = new Set()
  for (let i = 0; i < BATCH_RUNS; i++) {
    const batchBox = await spawnSandbox("orch-bench-batch-")
    try {
      execFileSync(process.execPath, [ORCH, "start", "app", "--detach"], { env: batchBox.env })
      await run(process.execPath, [ORCH, "spawn", "app", "1"], { env: batchBox.env }) // warm-up, as above
      const batchStart = process.hrtime.bigint()
      const out = await run(process.execPath, [ORCH, "batch-spawn", "app", ...Array.from({ length: 10 }, (_, n) => String(n + 2)), "--json"], {
        env: batchBox.env
      })
      const batchMs = Number(process.hrtime.bigint() - batchStart) / 1e6
      const outcomes = JSON.parse(out.stdout)
      if (outcomes.filter((o) => o._tag === "Created").length === 10) batchSamples.push(batchMs)
      for (const o of outcomes) if (o._tag === "Queued") queuedReasons.add(o.reason)
      execFileSync(process.execPath, [ORCH, "stop", "--kill-sessions"], { env: batchBox.env })
    } finally {
      batchBox.close()
    }
  }
  const batchMedian = batchSamples.length > 0 ? median(batchSamples) : undefined
  const spawnMedian = median(spawnSamples)
  const floorMedian = median(floorSamples)
  const nodeMedian = median(nodeSamples)
  const statusMedian = median(statusSamples)
  const body = [
    `${machine()}; ${RUNS} spawns (and as many floors) interleaved, ${
      new Date().toISOString().slice(0, 10)
    }. Agent: \`command\` (cat); tracker: a local HTTP server.`,
    "",
    "| measure | median | p95 | against | target |",
    "|---|---|---|---|---|",
    `| \`orch spawn\`, no supervisor (the CLI does it all) | ${ms(spawnMedian)} | ${ms(percentile(spawnSamples, 95))} | floor ${ms(floorMedian)} (+${
      ms(spawnMedian - floorMedian)
    }) | floor + 300 ms: ${spawnMedian - floorMedian <= 300 ? "met" : "NOT met"} |`,
    `| \`orch spawn\` through a running supervisor | ${ms(median(viaSupervisor))} | ${ms(percentile(viaSupervisor, 95))} | floor ${ms(floorMedian)} (+${
      ms(median(viaSupervisor) - floorMedian)
    }) | floor + 150 ms: ${median(viaSupervisor) - floorMedian <= 150 ? "met" : "NOT met"} |`,
    `| floor: \`node -e 0\` + \`git worktree add\` + \`tmux new-session\` | ${ms(floorMedian)} | ${ms(percentile(floorSamples, 95))} | | |`,
    `| \`orch status --json\`, 200 records | ${ms(statusMedian)} | ${ms(percentile(statusSamples, 95))} | node ${ms(nodeMedian)} (${
      ratio(statusMedian, nodeMedian)
    }) | under 4×: ${statusMedian / nodeMedian < 4 ? "met" : "NOT met"} |`,
    `| \`orch batch-spawn\` of 10 through the supervisor | ${batchMedian === undefined ? "–" : ms(batchMedian)} | ${
      batchSamples.length > 0 ? `range ${ms(Math.min(...batchSamples))}–${ms(Math.max(...batchSamples))}` : ""
    } | ${batchSamples.length} of ${BATCH_RUNS} batches started all 10${
      queuedReasons.size > 0 ? `; queued: ${[...queuedReasons].join("; ")}` : ""
    } | ≤ 600 ms with all 10 started: ${batchMedian === undefined ? "not measurable (admission queued some)" : batchMedian <= 600 ? "met" : "NOT met"} |`
  ].join("\n")
  recordSection("Spawn (`bench/spawn.mjs`)", body)
  console.log(body)
} finally {
  close()
}
