// `orch status --json` over 200 records with no supervisor running, against bare node in the same run (the part of
// bench/spawn.mjs that measures status, on its own). Also `orch session ls --json`, which loads the config and
// probes tmux once per project, for comparison. Target: status under 4× node.
// BENCH_BASELINE=<another build's dist/orch.mjs> adds that build's `status --json` to the same interleaved run
// (before/after a change), named in the table by BENCH_BASELINE_LABEL; BENCH_RECORD=0 prints without writing BENCHMARKS.md.
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { interleave, machine, median, ms, ORCH, percentile, ratio, recordSection, spawnSandbox, timeRun } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const { home, env, close } = await spawnSandbox("orch-bench-status-")

try {
  // 200 records: real records copied from one spawn, renumbered (their terminal is the spawned one's).
  execFileSync(process.execPath, [ORCH, "spawn", "app", "1"], { env, stdio: "ignore" })
  const sessions = join(home, ".orchestrator", "sessions", "app")
  const template = JSON.parse(execFileSync(process.execPath, [ORCH, "status", "--json"], { env, encoding: "utf8" }))[0]
  for (let n = 1000; n < 1200; n++) {
    mkdirSync(join(sessions, `app-${n}`), { recursive: true })
    writeFileSync(join(sessions, `app-${n}`, "session.json"), JSON.stringify({ ...template, sessionId: `app-${n}`, issueId: String(n) }))
  }
  const load = loadavg()[0].toFixed(1)
  const baseline = process.env.BENCH_BASELINE
  const samples = interleave(RUNS, {
    node: () => timeRun(process.execPath, ["-e", "0"], { env }),
    status: () => timeRun(process.execPath, [ORCH, "status", "--json"], { env }),
    ...(baseline !== undefined ? { baseline: () => timeRun(process.execPath, [baseline, "status", "--json"], { env }) } : {}),
    ls: () => timeRun(process.execPath, [ORCH, "session", "ls", "--json"], { env })
  })
  const floor = median(samples.node)
  const row = (label, name) => `| ${label} | ${ms(median(samples[name]))} | ${ms(percentile(samples[name], 95))} | ${ratio(median(samples[name]), floor)} |`
  const statusRatio = median(samples.status) / floor
  const body = [
    `${machine()}; ${RUNS} interleaved runs each, 201 records, no supervisor, load average ${load} at the start, ${new Date().toISOString().slice(0, 10)}.`,
    "",
    "| command | median | p95 | vs `node -e 0` |",
    "|---|---|---|---|",
    row("`node -e 0` (floor)", "node"),
    ...(baseline !== undefined
      ? [row(`\`orch status --json\`, ${process.env.BENCH_BASELINE_LABEL ?? "the baseline build (BENCH_BASELINE)"}`, "baseline")]
      : []),
    row("`orch status --json`", "status"),
    row("`orch session ls --json` (loads the config, probes tmux once)", "ls"),
    "",
    `Target: \`orch status --json\` under 4× bare node — ${statusRatio < 4 ? "met" : "NOT met"} (${statusRatio.toFixed(2)}×).`,
    "Without a supervisor, `status` marks live sessions as last recorded (with their age) instead of probing tmux: it",
    "reads one more small file (`supervisor.json`) and stays independent of the config; probing would cost what",
    "`session ls` costs over it (the config, the plugins, one tmux call)."
  ].join("\n")
  if (process.env.BENCH_RECORD !== "0") recordSection("Status without a supervisor (`bench/status.mjs`)", body)
  console.log(body)
} finally {
  close()
}
