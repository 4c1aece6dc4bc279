// What following 50 open PRs costs in rate limit: 50 sessions' PRs looked at every 30 s (the default poll) for
// one simulated hour against the repohost emulator, counting the requests GitHub would count (not the 304s).
// Target: under 600 counted requests an hour when nothing changes.
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { machine, recordSection } from "./lib.mjs"

const { startEmulator, makeRepohostScm } = await import(new URL("../dist/index.mjs", import.meta.url).href)
const SESSIONS = 50
const ROUNDS = 3600 / 30

const root = mkdtempSync(join(tmpdir(), "orch-bench-repohost-"))
const origin = join(root, "origin.git")
const repo = join(root, "app")
execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
execFileSync("git", ["init", "-q", "-b", "main", repo])
writeFileSync(join(repo, "README.md"), "# app\n")
execFileSync("git", ["-C", repo, "add", "."])
execFileSync("git", ["-C", repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "init"])
execFileSync("git", ["-C", repo, "push", "-q", origin, ...Array.from({ length: SESSIONS }, (_, i) => `main:refs/heads/feat/${i + 1}`), "main"])

const emulator = await startEmulator({ repos: [{ repo: "acme/app", gitDir: origin }], rateLimit: 1_000_000 })
try {
  for (let i = 1; i <= SESSIONS; i++) {
    await fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: `feat/${i}`, base: "main", title: `PR ${i}` }) })
  }
  const scm = makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: emulator.url }, {})
  const before = { ...emulator.stats }
  const start = process.hrtime.bigint()
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 1; i <= SESSIONS; i++) await Effect.runPromise(scm.observe(`feat/${i}`))
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  const counted = emulator.stats.counted - before.counted
  const free = emulator.stats.notModified - before.notModified
  const body = [
    `${machine()}; ${SESSIONS} open PRs, ${ROUNDS} polls (one hour at the default 30 s), ${new Date().toISOString().slice(0, 10)}; REST with ETags.`,
    "",
    "| requests in the hour | counted by the host | free (304) | wall time to run the hour's polls |",
    "|---|---|---|---|",
    `| ${counted + free} | ${counted} | ${free} | ${seconds.toFixed(1)} s |`,
    "",
    `Target: under 600 counted requests an hour when nothing changes — ${counted < 600 ? "met" : "NOT met"} (${counted}). The first look at each PR costs 4`,
    "requests (the PR list for its branch, the PR, its checks, its reviews); after that an unchanged answer is a 304.",
    "Not yet measured here: the batched GraphQL query (one request for many PRs) and reaction latency from a CI failure to the agent's",
    "pane (the end-to-end test sees a webhook's CI failure in the pane within 5 s)."
  ].join("\n")
  recordSection("Repohost (`bench/repohost.mjs`)", body)
  console.log(body)
} finally {
  await emulator.close()
  rmSync(root, { recursive: true, force: true })
}
