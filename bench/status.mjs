// `orch status --json` with no supervisor running, at 0 and at 1,000 session records, against bare node in the same
// interleaved run; also `orch session ls --json` at 1,000, which loads the config and probes tmux once per project,
// for comparison. Targets (issue 22): status ≤ 2.5× `node -e 0` at 0 sessions and ≤ 3× at 1,000.
// BENCH_BASELINE=<another build's dist/orch.mjs> adds that build's `status --json` (both sizes) to the same run
// (before/after a change), named in the table by BENCH_BASELINE_LABEL; BENCH_RECORD=0 prints without writing BENCHMARKS.md.
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { interleave, machine, median, ms, ORCH, percentile, ratio, recordSection, spawnSandbox, timeRun } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const RECORDS = 1000
const { root, home, env, close } = await spawnSandbox("orch-bench-status-")
// The same user with no sessions at all: another HOME, nothing in it.
const empty = { ...env, HOME: join(root, "empty-home") }
mkdirSync(empty.HOME)

try {
  // 1,000 records: real records copied from one spawn, renumbered (their terminal is the spawned one's).
  execFileSync(process.execPath, [ORCH, "spawn", "app", "1"], { env, stdio: "ignore" })
  const sessions = join(home, ".orchestrator", "sessions", "app")
  const template = JSON.parse(execFileSync(process.execPath, [ORCH, "status", "--json"], { env, encoding: "utf8" }))[0]
  for (let n = 1000; n < 1000 + RECORDS - 1; n++) {
    mkdirSync(join(sessions, `app-${n}`), { recursive: true })
    writeFileSync(join(sessions, `app-${n}`, "session.json"), JSON.stringify({ ...template, sessionId: `app-${n}`, issueId: String(n) }))
  }
  const shown = JSON.parse(execFileSync(process.execPath, [ORCH, "status", "--json"], { env, encoding: "utf8" })).length
  if (shown !== RECORDS) throw new Error(`status shows ${shown} sessions, not ${RECORDS}`)
  const load = loadavg()[0].toFixed(1)
  const baseline = process.env.BENCH_BASELINE
  const samples = interleave(RUNS, {
    node: () => timeRun(process.execPath, ["-e", "0"], { env }),
    status0: () => timeRun(process.execPath, [ORCH, "status", "--json"], { env: empty }),
    ...(baseline !== undefined ? { baseline0: () => timeRun(process.execPath, [baseline, "status", "--json"], { env: empty }) } : {}),
    status: () => timeRun(process.execPath, [ORCH, "status", "--json"], { env }),
    ...(baseline !== undefined ? { baseline: () => timeRun(process.execPath, [baseline, "status", "--json"], { env }) } : {}),
    ls: () => timeRun(process.execPath, [ORCH, "session", "ls", "--json"], { env })
  })
  const floor = median(samples.node)
  const row = (label, name) => `| ${label} | ${ms(median(samples[name]))} | ${ms(percentile(samples[name], 95))} | ${ratio(median(samples[name]), floor)} |`
  const target = (label, name, limit) => {
    const r = median(samples[name]) / floor
    return `${label} ≤ ${limit}× bare node — ${r <= limit ? "met" : "NOT met"} (${r.toFixed(2)}×).`
  }
  const label = process.env.BENCH_BASELINE_LABEL ?? "the baseline build (BENCH_BASELINE)"
  const body = [
    `${machine()}; ${RUNS} interleaved runs each, no supervisor, load average ${load} at the start, ${new Date().toISOString().slice(0, 10)}.`,
    "",
    "| command | median | p95 | vs `node -e 0` |",
    "|---|---|---|---|",
    row("`node -e 0` (floor)", "node"),
    ...(baseline !== undefined ? [row(`\`orch status --json\`, 0 sessions, ${label}`, "baseline0")] : []),
    row("`orch status --json`, 0 sessions", "status0"),
    ...(baseline !== undefined ? [row(`\`orch status --json\`, ${RECORDS} sessions, ${label}`, "baseline")] : []),
    row(`\`orch status --json\`, ${RECORDS} sessions`, "status"),
    row(`\`orch session ls --json\`, ${RECORDS} sessions (loads the config, probes tmux once)`, "ls"),
    "",
    `Targets: ${target("status at 0 sessions", "status0", 2.5)} ${target(`status at ${RECORDS} sessions`, "status", 3)}`,
    "Without a supervisor, `status` marks live sessions as last recorded (with their age) instead of probing tmux: it",
    "reads one more small file (`supervisor.json`) and stays independent of the config; probing would cost what",
    "`session ls` costs over it (the config, the plugins, one tmux call)."
  ].join("\n")
  if (process.env.BENCH_RECORD !== "0") recordSection("Status without a supervisor (`bench/status.mjs`)", body)
  console.log(body)
} finally {
  close()
}
