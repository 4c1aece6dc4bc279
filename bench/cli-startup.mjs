// How fast `orch` starts, against bare `node -e 0` in the same interleaved run: `--version`, `--help`, `queue ls`
// and `config validate` on a 50-project config. Targets (issue 22): `orch --help` ≤ 2.5× bare node, `orch --version`
// ≤ 1.3×. Each run has a fresh HOME with no orch data: the code cache in use is the shipped one, or the one the
// warm-up run leaves in the user's cache directory when the shipped one was made by another Node.
// BENCH_OTHER_NODES=<node binaries, comma-separated> adds a table per other Node (every command and the floor on it):
// the code cache on a Node other than the build's. BENCH_BASELINE=<another build's dist/orch.mjs> adds that build's `--help` and
// `queue ls` to the same run (before/after), named by BENCH_BASELINE_LABEL. BENCH_RECORD=0 prints without writing
// BENCHMARKS.md; BENCH_SECTION names the section it writes (default "CLI start-up").
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { interleave, machine, median, ms, ORCH, percentile, ratio, recordSection, timeRun } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 30)
const NODES = [process.execPath, ...(process.env.BENCH_OTHER_NODES ?? "").split(",").filter((node) => node !== "")]
const dir = mkdtempSync(join(tmpdir(), "orch-bench-"))
const config = join(dir, "orchestrator.yaml")
writeFileSync(
  config,
  "projects:\n" +
    Array.from(
      { length: 50 },
      (_, i) => `  project-${i}:\n    repo: acme/project-${i}\n    path: ~/code/project-${i}\n    sessionPrefix: p${i}\n    agentRules: Run the tests.\n`
    ).join("")
)
const baseline = process.env.BENCH_BASELINE
const baselineLabel = process.env.BENCH_BASELINE_LABEL ?? "the baseline build (BENCH_BASELINE)"

/** One interleaved run of every command on `NODE`, as a table with its targets. */
const measure = (NODE, index) => {
  const nodeVersion = execFileSync(NODE, ["--version"], { encoding: "utf8" }).trim()
  // A fresh user: no orch data, an empty tmux directory, no ORCH_* overrides.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ORCH_") && name !== "TMUX"))
  Object.assign(env, { HOME: join(dir, `home-${index}`), TMUX_TMPDIR: join(dir, `tmux-${index}`) })
  const run = (script, ...args) => () => timeRun(NODE, [script, ...args], { env })
  const load = loadavg()[0].toFixed(1)
  const samples = interleave(RUNS, {
    node: () => timeRun(NODE, ["-e", "0"], { env }),
    version: run(ORCH, "--version"),
    help: run(ORCH, "--help"),
    ...(baseline !== undefined ? { baselineHelp: run(baseline, "--help") } : {}),
    queue: run(ORCH, "queue", "ls"),
    ...(baseline !== undefined ? { baselineQueue: run(baseline, "queue", "ls") } : {}),
    validate: run(ORCH, "config", "validate", config)
  })
  const floor = median(samples.node)
  const row = (label, name) => `| ${label} | ${ms(median(samples[name]))} | ${ms(percentile(samples[name], 95))} | ${ratio(median(samples[name]), floor)} |`
  const target = (label, name, limit) => {
    const r = median(samples[name]) / floor
    return `${label} ≤ ${limit}× bare node — ${r <= limit ? "met" : "NOT met"} (${r.toFixed(2)}×).`
  }
  return [
    `${machine().replace(/Node v[\d.]+/, `Node ${nodeVersion}`)}; ${RUNS} interleaved runs each, fresh HOME, load average ${load} at the start, ${
      new Date().toISOString().slice(0, 10)
    }.`,
    "",
    "| command | median | p95 | vs `node -e 0` |",
    "|---|---|---|---|",
    row("`node -e 0` (floor)", "node"),
    row("`orch --version`", "version"),
    ...(baseline !== undefined ? [row(`\`orch --help\`, ${baselineLabel}`, "baselineHelp")] : []),
    row("`orch --help` (loads the command tree)", "help"),
    ...(baseline !== undefined ? [row(`\`orch queue ls\`, ${baselineLabel}`, "baselineQueue")] : []),
    row("`orch queue ls` (no supervisor, empty queue)", "queue"),
    row("`orch config validate` (50 projects)", "validate"),
    "",
    `Targets: ${target("`orch --help`", "help", 2.5)} ${target("`orch --version`", "version", 1.3)}`
  ].join("\n")
}

try {
  const body = NODES.map(measure).join("\n\n")
  if (process.env.BENCH_RECORD !== "0") recordSection(process.env.BENCH_SECTION ?? "CLI start-up (`bench/cli-startup.mjs`)", body)
  console.log(body)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
