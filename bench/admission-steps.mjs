// What one admission costs the supervisor: fsyncs (the durable steps: every record, queue and file write that must
// survive a power cut) and wall time from `queue add` to the last `queue.admitted`, for N queued issues, by this build
// and, when BASELINE names another build's dist/orch.mjs (e.g. one of main before the durable admission), by that one
// in the same run. Counted with strace on the supervisor and its threads (needs strace; the agents' processes are
// not counted). Target: at most one fsync more per admission than before the durable two-step admission.
import { execFile, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { machine, median, ORCH, recordSection, spawnSandbox } from "./lib.mjs"

const ISSUES = Number(process.env.BENCH_ISSUES ?? 10)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const builds = { current: ORCH, ...(process.env.BASELINE ? { baseline: process.env.BASELINE } : {}) }

const waitFor = async (what, check, ms = 60_000) => {
  const until = Date.now() + ms
  for (;;) {
    const found = check()
    if (found) return found
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** One run: a supervisor (under strace when `traced`: it slows every system call), N issues queued at once, until all are admitted. */
const measure = async (cli, traced) => {
  const sandbox = await spawnSandbox("orch-bench-admission-steps-")
  try {
    const data = join(sandbox.home, ".orchestrator")
    const events = () =>
      existsSync(join(data, "events.jsonl")) ? readFileSync(join(data, "events.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line)) : []
    // Run without blocking: the sandbox's tracker answers from this process.
    const orch = (...args) => promisify(execFile)(process.execPath, [cli, ...args], { env: sandbox.env, encoding: "utf8" })
    const traceFile = join(sandbox.root, "strace.out")
    const command = [process.execPath, cli, "start", "app", "--no-open"]
    const supervisor = traced
      ? spawn("strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", traceFile, ...command], { env: sandbox.env, stdio: "ignore" })
      : spawn(command[0], command.slice(1), { env: sandbox.env, stdio: "ignore" })
    const synced = () => traced ? readFileSync(traceFile, "utf8").split("\n").filter((line) => /\bf(data)?sync\(/.test(line)).length : 0
    await waitFor("the supervisor", () => events().some((e) => e.type === "supervisor.started"))
    await waitFor("its orchestrator session", () => events().some((e) => e.type === "session.spawned"))
    const before = synced()
    const start = performance.now()
    await orch("queue", "add", "app", ...Array.from({ length: ISSUES }, (_, i) => String(i + 1)))
    await waitFor("every issue admitted", () => events().filter((e) => e.type === "queue.admitted").length === ISSUES)
    const ms = performance.now() - start
    // Let the last round's trailing writes (admission.json) land before counting.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const fsyncs = synced() - before
    const exited = new Promise((resolve) => supervisor.once("exit", resolve))
    await orch("stop", "--kill-sessions")
    await exited
    return { fsyncs, ms }
  } finally {
    sandbox.close()
  }
}

const traced = Object.fromEntries(Object.keys(builds).map((name) => [name, []]))
const timed = Object.fromEntries(Object.keys(builds).map((name) => [name, []]))
for (let run = 0; run < RUNS; run++) {
  for (const [name, cli] of Object.entries(builds)) {
    traced[name].push(await measure(cli, true))
    timed[name].push(await measure(cli, false))
  }
}
const rows = Object.keys(builds).map((name) => {
  const fsyncs = median(traced[name].map((s) => s.fsyncs)) / ISSUES
  const ms = median(timed[name].map((s) => s.ms)) / ISSUES
  return `| ${name} | ${fsyncs.toFixed(1)} | ${ms.toFixed(0)} ms |`
})
const body = `${machine()}; ${ISSUES} issues queued at once, ${RUNS} runs each (medians), interleaved, ${new Date().toISOString().slice(0, 10)}.
The supervisor's own fsyncs (strace -f on it; its agents not counted) and, in runs without strace, the wall time from
\`queue add\` to the last \`queue.admitted\`, per admission (the total over the issues; admission starts them side by side since session 14, one at a time before). Agent: \`command\` (cat).

| build | fsyncs per admission | time per admission |
|---|---|---|
${rows.join("\n")}
`
console.log(body)
recordSection("Admission steps (`bench/admission-steps.mjs`)", body)
