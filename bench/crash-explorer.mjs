// The crash-point explorer (test/crash/, issue 20): many seeded runs, each a scenario crashed at one point of the
// supervisor or of one of its commands (SIGKILL mostly, also SIGTERM and SIGINT, now and then a kill -9 from outside),
// then recovery and the invariants. Prints every violation with the seed that replays it, and reports the crash
// points tried per scenario and per label, the violations, and the wall time.
//
//   node bench/crash-explorer.mjs [--runs N] [--seed S] [--scenario NAME] [--jobs J] [--no-record]
//
// Seeds S, S+1, … S+N-1 (default 1 and 50). `--seed S --scenario NAME` alone replays one run (and records nothing).
import { execFileSync } from "node:child_process"
import { machine, recordSection } from "./lib.mjs"

// The explorer is TypeScript, which node runs as it is from 22.18 on (the package needs 22.19).
if (!process.features.typescript) {
  console.error(`bench/crash-explorer.mjs imports test/crash/*.ts: it needs a Node that strips types (22.18 or later), not ${process.version}`)
  process.exit(2)
}
const { explore, remoteHostUnavailable, SCENARIOS } = await import("../test/crash/explorer.ts")
const { labelKind } = await import("../test/crash/trace.ts")

const option = (name) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const seedGiven = option("seed") !== undefined
const runsGiven = option("runs") !== undefined
const first = Number(option("seed") ?? 1)
const runs = Number(option("runs") ?? (seedGiven ? 1 : 50))
const jobs = Number(option("jobs") ?? 2)
const scenario = option("scenario")
const record = !process.argv.includes("--no-record") && !(seedGiven && !runsGiven)

execFileSync(process.execPath, [new URL("../scripts/build.mjs", import.meta.url).pathname], { stdio: "ignore" })
const began = Date.now()
const seeds = Array.from({ length: runs }, (_, i) => first + i)
if (remoteHostUnavailable !== undefined) console.log(`the host-down scenario's seeds are skipped: it ${remoteHostUnavailable}`)
console.log(`crash explorer: seeds ${first}–${first + runs - 1}${scenario ? `, scenario ${scenario}` : ""}, ${jobs} at a time`)

// Ctrl-C: the runs under way finish and clean up (their HOMEs, tmux servers, hosts' users), then the report.
const stop = new AbortController()
process.once("SIGINT", () => {
  console.log("stopping after the runs under way (Ctrl-C again to leave them as they are)")
  stop.abort()
})
const { uninterrupted, outcomes } = await explore({
  seeds,
  scenario,
  jobs,
  signal: stop.signal,
  onProfile: ({ scenario: name, result, violations }) => {
    const { supervisorPoints, stepPoints } = result.profile
    console.log(`uninterrupted ${name}: ${supervisorPoints} supervisor points, ${stepPoints.reduce((a, b) => a + b, 0)} command points, ${result.ms} ms`)
    for (const v of violations) console.log(`  VIOLATION ${v}`)
  },
  onOutcome: (o) => {
    const died = o.died ? `died at ${o.died.n} "${o.died.label}"` : o.crashed ? "died" : "crash never came"
    console.log(
      `seed ${o.seed} ${o.scenario}: ${o.planned}: ${died}; ${o.violations.length === 0 ? "ok" : `${o.violations.length} violation(s)`} (${
        (o.ms / 1000).toFixed(1)
      } s)`
    )
    for (const v of o.violations) console.log(`  VIOLATION ${v}`)
    for (const note of o.notes) console.log(`  note: ${note}`)
    if (o.violations.length > 0) console.log(`  replay: node bench/crash-explorer.mjs --seed ${o.seed} --scenario ${o.scenario}`)
  }
})
const wallMs = Date.now() - began

/** A violation with what differs between runs taken out, so the same finding counts once. */
const kind = (sentence) =>
  sentence.replace(/ \((seed \d+|scenario [\w-]+, uninterrupted run).*$/, "").replace(/\/tmp\/orch-crash-\w+/g, "<run>").replace(/\bapp-\d+\b/g, "app-N")
    .replace(/\bq-\d+\b/g, "q-N").replace(/\bissue(s?) \d+(, \d+)*/g, "issue$1 N").replace(/\bpid \d+/g, "pid N").replace(/process \d+/g, "process N")
    .replace(/\b[0-9a-f]{12}\b/g, "<commit>").replace(/feat\/\d+/g, "feat/N")

const crashedRuns = outcomes.filter((o) => o.crashed)
const byScenario = SCENARIOS.filter((s) => uninterrupted.some((u) => u.scenario === s.name)).map((s) => {
  const mine = outcomes.filter((o) => o.scenario === s.name)
  const profile = uninterrupted.find((u) => u.scenario === s.name)
  return {
    name: s.name,
    description: s.description,
    supervisorPoints: profile.result.profile.supervisorPoints,
    commandPoints: profile.result.profile.stepPoints.reduce((a, b) => a + b, 0),
    runs: mine.length,
    crashed: mine.filter((o) => o.crashed).length,
    failing: mine.filter((o) => o.violations.length > 0).length,
    uninterruptedViolations: profile.violations.length
  }
})
const labels = new Map()
for (const o of crashedRuns) {
  const label = o.died ? labelKind(o.died.label) : "(before the first point)"
  labels.set(label, (labels.get(label) ?? 0) + 1)
}
const kinds = new Map()
for (
  const [sentence, seed, name] of [
    ...uninterrupted.flatMap((u) => u.violations.map((v) => [v, undefined, u.scenario])),
    ...outcomes.flatMap((o) => o.violations.map((v) => [v, o.seed, o.scenario]))
  ]
) {
  const k = kind(sentence)
  const found = kinds.get(k) ?? { count: 0, example: undefined }
  found.count++
  if (found.example === undefined) found.example = seed === undefined ? `uninterrupted ${name}` : `--seed ${seed} --scenario ${name}`
  kinds.set(k, found)
}
const violations = outcomes.reduce((n, o) => n + o.violations.length, 0) + uninterrupted.reduce((n, u) => n + u.violations.length, 0)
const leftBehind = outcomes.filter((o) => o.notes.length > 0)
const perPoint = crashedRuns.length === 0 ? 0 : wallMs / 1000 / crashedRuns.length

console.log("\nscenario | uninterrupted points (supervisor + commands) | runs | crashed | runs with violations")
for (const s of byScenario) console.log(`${s.name} | ${s.supervisorPoints} + ${s.commandPoints} | ${s.runs} | ${s.crashed} | ${s.failing}`)
console.log("\ncrash points tried, by label:")
for (const [label, count] of [...labels].sort((a, b) => b[1] - a[1])) console.log(`  ${count} × ${label}`)
const failing = outcomes.filter((o) => o.violations.length > 0).length + uninterrupted.filter((u) => u.violations.length > 0).length
console.log(`\n${violations} violation(s) in ${failing} of ${outcomes.length + uninterrupted.length} runs (uninterrupted ones too); ${kinds.size} kind(s):`)
for (const [k, { count, example }] of kinds) console.log(`  ${count} × ${k} (e.g. ${example})`)
if (leftBehind.length > 0) {
  console.log(
    `\n${leftBehind.length} run(s) left an agent's environment file in TMPDIR (no invariant; e.g. --seed ${leftBehind[0].seed} --scenario ${
      leftBehind[0].scenario
    })`
  )
}
console.log(`\n${crashedRuns.length} crash points in ${(wallMs / 1000).toFixed(0)} s with ${jobs} jobs: ${perPoint.toFixed(1)} s per crash point`)

if (record && !stop.signal.aborted) {
  const scenarioRows = byScenario.map((s) =>
    `| ${s.name} | ${s.description} | ${s.supervisorPoints} + ${s.commandPoints} | ${s.runs} | ${s.crashed} | ${s.failing}${
      s.uninterruptedViolations > 0 ? " (and its uninterrupted run)" : ""
    } |`
  )
  const labelRows = [...labels].sort((a, b) => b[1] - a[1]).map(([label, count]) => `| ${label} | ${count} |`)
  const kindRows = [...kinds].map(([k, { count, example }]) => `| ${k.replaceAll("|", "\\|")} | ${count} | \`${example}\` |`)
  const how = `${machine()}; ${new Date().toISOString().slice(0, 10)}. Seeds ${first}–${first + runs - 1}${scenario ? ` (scenario ${scenario})` : ""}, ` +
    `${jobs} runs at a time, each on a fresh HOME, an empty TMUX_TMPDIR and the repository's own orchestrator.yaml: the scenario with one ` +
    "process crashed (SIGKILL 70%, SIGTERM 15%, SIGINT 15% at a crash point drawn from the scenario's uninterrupted run; 15% of runs a " +
    "`kill -9` from outside at a seeded moment instead), then `orch start --detach`, its first admission round, `orch stop`, and the " +
    "invariants (test/crash/invariants.ts, docs/crash-explorer.md)."
  const found = kinds.size === 0
    ? "No invariant was violated."
    : `Violations, by kind (replay one with \`node bench/crash-explorer.mjs <example>\`):\n\n| violation | times | example |\n|---|---|---|\n${
      kindRows.join("\n")
    }`
  const left = leftBehind.length === 0
    ? ""
    : `\n\nNo invariant, but worth knowing: ${leftBehind.length} run(s) left an agent's environment file (which may hold secrets) in TMPDIR: ` +
      `a spawn killed between writing it and the agent's shell reading it (e.g. \`--seed ${leftBehind[0].seed} --scenario ${leftBehind[0].scenario}\`).`
  recordSection(
    "Crash-point explorer (`bench/crash-explorer.mjs`)",
    `${how}

**${crashedRuns.length} crash points, ${violations} violation(s)** (${kinds.size} kind(s)) in ${(wallMs / 1000).toFixed(0)} s: ${
      perPoint.toFixed(1)
    } s of wall time per crash point.

| scenario | what it does | crash points in its uninterrupted run (supervisor + commands) | runs | crashed | runs with violations |
|---|---|---|---|---|---|
${scenarioRows.join("\n")}

Where the runs died (the crash point's label; an outside kill counts at the last point the process passed):

| label | runs |
|---|---|
${labelRows.join("\n")}

${found}${left}`
  )
}
if (violations > 0) process.exitCode = 1
