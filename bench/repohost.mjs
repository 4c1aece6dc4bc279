// What following 50 open PRs costs in rate limit: 50 sessions' PRs looked at every 30 s (the default poll) for
// one simulated hour against the repohost emulator, the way the supervisor asks (one batched GraphQL query per
// 25 branches), counting the requests GitHub would count and the GraphQL points spent.
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
  const scm = makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: emulator.url }, { GITHUB_TOKEN: "bench" })
  const branches = Array.from({ length: SESSIONS }, (_, i) => `feat/${i + 1}`)
  const before = { ...emulator.stats }
  const start = process.hrtime.bigint()
  for (let round = 0; round < ROUNDS; round++) await Effect.runPromise(scm.observeMany(branches))
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  const rest = emulator.stats.counted - before.counted
  const queries = emulator.stats.graphqlQueries - before.graphqlQueries
  const points = emulator.stats.graphqlPoints - before.graphqlPoints
  const counted = rest + queries
  const body = [
    `${machine()}; ${SESSIONS} open PRs, ${ROUNDS} polls (one hour at the default 30 s), ${new Date().toISOString().slice(0, 10)}.`,
    "",
    "| counted requests in the hour | of which GraphQL queries | REST | GraphQL points spent (of 5000/h) | per poll | wall time to run the hour's polls |",
    "|---|---|---|---|---|---|",
    `| ${counted} | ${queries} | ${rest} | ${points} | ${(counted / ROUNDS).toFixed(1)} | ${seconds.toFixed(1)} s |`,
    "",
    `Target: under 600 counted requests an hour when nothing changes — ${counted < 600 ? "met" : "NOT met"} (${counted}). Each poll is one aliased`,
    "GraphQL query per 25 branches (state, checks and statuses, reviews, review threads, mergeability of each PR), so the cost grows with",
    "sessions / 25, not with sessions × 4 as per-PR REST calls would. The emulator charges 1 point per query, as GitHub charges small queries.",
    "Issue lookups (REST) go through the same gateway with ETags: an unchanged issue is a free 304."
  ].join("\n")
  recordSection("Repohost (`bench/repohost.mjs`)", body)
  console.log(body)
} finally {
  await emulator.close()
  rmSync(root, { recursive: true, force: true })
}
