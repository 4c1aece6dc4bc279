// How fast `orch` starts: `orch --version` and `orch config validate` on a 50-project config, against bare
// `node -e 0` in the same run. Target: `orch --version` within 3× of bare node.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { interleave, machine, median, ms, ORCH, percentile, ratio, recordSection, timeRun } from "./lib.mjs"

const RUNS = Number(process.env.BENCH_RUNS ?? 30)
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
const env = { ...process.env, HOME: dir }

try {
  const samples = interleave(RUNS, {
    node: () => timeRun(process.execPath, ["-e", "0"], { env }),
    version: () => timeRun(process.execPath, [ORCH, "--version"], { env }),
    validate: () => timeRun(process.execPath, [ORCH, "config", "validate", config], { env }),
    help: () => timeRun(process.execPath, [ORCH, "--help"], { env })
  })
  const floor = median(samples.node)
  const row = (label, name) => `| ${label} | ${ms(median(samples[name]))} | ${ms(percentile(samples[name], 95))} | ${ratio(median(samples[name]), floor)} |`
  const versionRatio = median(samples.version) / floor
  const body = [
    `${machine()}; ${RUNS} interleaved runs each, ${new Date().toISOString().slice(0, 10)}.`,
    "",
    "| command | median | p95 | vs `node -e 0` |",
    "|---|---|---|---|",
    row("`node -e 0` (floor)", "node"),
    row("`orch --version`", "version"),
    row("`orch --help` (loads the command tree)", "help"),
    row("`orch config validate` (50 projects)", "validate"),
    "",
    `Target: \`orch --version\` within 3× of bare node — ${versionRatio <= 3 ? "met" : "NOT met"} (${versionRatio.toFixed(2)}×).`
  ].join("\n")
  recordSection("CLI start-up (`bench/cli-startup.mjs`)", body)
  console.log(body)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
