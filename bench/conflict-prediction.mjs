// Conflict prediction: its cost and its accuracy, on a real repository with 20 session branches.
//   cost: git processes per round (counted by a wrapper `git` first on PATH, which logs every run) and wall time per
//   round, for a cold start, a round where nothing moved, a push to one session branch (20 of them), and the default
//   branch moving on; beside the floor a naive prediction cannot go below: a merge-tree of every pair each round.
//   accuracy: the predicted textual conflicts against what happens when the branches are merged one by one into the
//   default branch (real `git merge`s, a branch whose merge conflicts is left out, as its PR could not merge), in
//   several random orders. A branch counts as predicted to conflict when a predicted conflict pairs it with the
//   default branch or with a branch merged before it.
// The rounds run the code the supervisor's conflict loop runs (actors/conflict-git.ts readProject and
// actors/rules/conflict-pairs.ts, loaded as TypeScript by Node), with the branches the sessions' worktrees would hold.
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { machine, median, ms, percentile, recordSection } from "./lib.mjs"

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20)
const PUSHES = Number(process.env.BENCH_PUSHES ?? 20)
const ORDERS = Number(process.env.BENCH_ORDERS ?? 10)
const FILES = 12
const LINES = 60

const { NodeServices } = await import("@effect/platform-node")
const ManagedRuntime = await import("effect/ManagedRuntime")
const { readProject, mergeTree } = await import(new URL("../actors/conflict-git.ts", import.meta.url).href)
const { emptyCache, predictionsOf } = await import(new URL("../actors/rules/conflict-pairs.ts", import.meta.url).href)
const runtime = ManagedRuntime.make(NodeServices.layer)

// A seeded generator: the same branches every run.
let seed = Number(process.env.BENCH_SEED ?? 24)
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (n) => Math.floor(random() * n)

const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
const root = mkdtempSync(join(tmpdir(), "orch-bench-conflicts-"))
const git = (cwd, ...args) => execFileSync(REAL_GIT, ["-C", cwd, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
const gitStatus = (cwd, ...args) => {
  try {
    execFileSync(REAL_GIT, ["-C", cwd, ...args], { stdio: "ignore" })
    return 0
  } catch (error) {
    return error.status ?? 1
  }
}

// The wrapper `git` the code under test finds first on PATH: one line per process.
const bin = join(root, "bin")
const log = join(root, "git-runs.log")
mkdirSync(bin)
writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$3" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`)
chmodSync(join(bin, "git"), 0o755)
writeFileSync(log, "")
process.env.PATH = `${bin}:${process.env.PATH}`
const runsSoFar = () => readFileSync(log, "utf8").split("\n").filter(Boolean)

// The repository: origin and a clone with FILES files of LINES lines; a scratch worktree to make commits in.
const origin = join(root, "origin.git")
const repo = join(root, "app")
execFileSync(REAL_GIT, ["init", "-q", "--bare", "-b", "main", origin])
execFileSync(REAL_GIT, ["init", "-q", "-b", "main", repo])
git(repo, "config", "user.email", "bench@example.com")
git(repo, "config", "user.name", "Bench")
const fileName = (f) => `src/module-${f}.ts`
mkdirSync(join(repo, "src"))
for (let f = 0; f < FILES; f++) {
  writeFileSync(join(repo, fileName(f)), Array.from({ length: LINES }, (_, l) => `export const v${l} = ${l}`).join("\n") + "\n")
}
git(repo, "add", ".")
git(repo, "commit", "-qm", "initial")
git(repo, "remote", "add", "origin", origin)
git(repo, "push", "-q", "origin", "main")
git(repo, "fetch", "-q", "origin")
const scratch = join(root, "scratch")
git(repo, "worktree", "add", "-q", "--detach", scratch, "origin/main")

/** A spot to edit: half the time in one of 3 hot files' first 12 lines (where work collides), else anywhere. */
const spot = () => (random() < 0.5 ? { file: pick(3), line: pick(12) } : { file: pick(FILES), line: pick(LINES) })
const editSpot = (where, text) => {
  const path = join(scratch, fileName(where.file))
  const lines = readFileSync(path, "utf8").split("\n")
  lines[where.line] = `export const v${where.line} = "${text}"`
  writeFileSync(path, lines.join("\n"))
}
/** A commit on `branch` (from its own head, or from `from`) editing 1 or 2 spots. */
const commitOn = (branch, from, label) => {
  git(scratch, "checkout", "-q", "-B", branch, from ?? branch)
  for (let i = 0, n = 1 + pick(2); i < n; i++) editSpot(spot(), `${label} ${i}`)
  git(scratch, "commit", "-qam", label)
}

const branches = Array.from({ length: SESSIONS }, (_, i) => `feat/${i + 1}`)
const sessions = branches.map((branch, i) => ({ sessionId: `app-${i + 1}`, branch }))
for (const branch of branches) commitOn(branch, "origin/main", branch)
git(scratch, "checkout", "-q", "--detach")
const project = { id: "app", path: repo, defaultBranch: "main" }

let cache = emptyCache
/** One round as the supervisor runs it: git processes (by the wrapper's log), wall time, predictions. */
const round = async () => {
  const before = runsSoFar().length
  const start = performance.now()
  const read = await runtime.runPromise(readProject(project, sessions, cache))
  const predictions = predictionsOf(read.heads, read.cache)
  const wall = performance.now() - start
  cache = read.cache
  const runs = runsSoFar().slice(before)
  if (runs.length !== read.gitRuns) throw new Error(`the wrapper saw ${runs.length} git runs, the round counted ${read.gitRuns}`)
  return { processes: runs.length, wall, predictions, kinds: runs }
}

const cold = await round()
const steady = []
for (let i = 0; i < 5; i++) steady.push(await round())
const pushes = []
for (let i = 0; i < PUSHES; i++) {
  const branch = branches[pick(SESSIONS)]
  commitOn(branch, undefined, `${branch} push ${i}`)
  git(scratch, "checkout", "-q", "--detach")
  pushes.push(await round())
}
// The default branch moves on (another PR merged on the repohost; a spawn's fetch brings it here).
commitOn("landed", "origin/main", "landed elsewhere")
git(scratch, "push", "-q", "origin", "landed:main")
git(repo, "fetch", "-q", "origin")
git(scratch, "checkout", "-q", "--detach")
const mainMoved = await round()
const final = (await round()).predictions

// The floor of a prediction without heads kept: every pair and every session with the default branch, each round.
const heads = Object.fromEntries(branches.map((b) => [b, git(repo, "rev-parse", b)]))
const mainHead = git(repo, "rev-parse", "origin/main")
const naiveStart = performance.now()
const naiveBefore = runsSoFar().length
for (let i = 0; i < SESSIONS; i++) {
  await runtime.runPromise(mergeTree(repo, heads[branches[i]], mainHead))
  for (let j = i + 1; j < SESSIONS; j++) await runtime.runPromise(mergeTree(repo, heads[branches[i]], heads[branches[j]]))
}
const naive = { processes: runsSoFar().length - naiveBefore, wall: performance.now() - naiveStart }

// Accuracy: merge the branches one by one into the default branch, in random orders.
const conflictPairs = final.filter((p) => p.kind === "conflict")
const overlapPairs = final.filter((p) => p.kind === "overlap")
const withMain = (kind, branch) => final.some((p) => p.kind === kind && p.a.branch === branch && p.b.sessionId === undefined)
const between = (pairs, x, merged) => pairs.some((p) => (p.a.branch === x && merged.has(p.b.branch)) || (p.b.branch === x && merged.has(p.a.branch)))
const tally = { tp: 0, fp: 0, fn: 0, tn: 0, overlapOnly: 0, overlapOnlyConflicted: 0 }
const missed = []
for (let o = 0; o < ORDERS; o++) {
  const order = [...branches].sort(() => random() - 0.5)
  git(scratch, "checkout", "-q", "-B", "trial", "origin/main")
  const merged = new Set()
  for (const branch of order) {
    const predicted = withMain("conflict", branch) || between(conflictPairs, branch, merged)
    const overlap = !predicted && (withMain("overlap", branch) || between(overlapPairs, branch, merged))
    const actual = gitStatus(scratch, "merge", "-q", "--no-ff", "--no-edit", branch) !== 0
    if (actual) gitStatus(scratch, "merge", "--abort")
    else merged.add(branch)
    if (predicted && actual) tally.tp++
    else if (predicted) tally.fp++
    else if (actual) {
      tally.fn++
      missed.push(`${branch} (order ${o + 1})`)
    } else tally.tn++
    if (overlap) {
      tally.overlapOnly++
      if (actual) tally.overlapOnlyConflicted++
    }
  }
}
git(scratch, "checkout", "-q", "--detach")
await runtime.dispose()
rmSync(root, { recursive: true, force: true })

const precision = tally.tp + tally.fp === 0 ? 1 : tally.tp / (tally.tp + tally.fp)
const recall = tally.tp + tally.fn === 0 ? 1 : tally.tp / (tally.tp + tally.fn)
const pushRuns = pushes.map((p) => p.processes)
const pushWalls = pushes.map((p) => p.wall)
const pct = (x) => `${(x * 100).toFixed(1)} %`
const body = `
${SESSIONS} session branches on a real repository (${FILES} files of ${LINES} lines; each branch edits 1 or 2 lines, half of
them in the first 12 lines of 3 hot files, so work collides), then ${PUSHES} pushes (a commit on a random branch), then
the default branch moving on (a commit pushed to origin and fetched). Each round is what the supervisor's conflict
loop runs (actors/conflict-git.ts \`readProject\` and rules/conflict-pairs.ts), every 5 s; git processes are counted by a
wrapper \`git\` first on PATH. Seed ${process.env.BENCH_SEED ?? 24}; ${machine()}.

| round | git processes | wall time |
|---|---|---|
| cold start (nothing known) | ${cold.processes} | ${ms(cold.wall)} |
| nothing moved (median of ${steady.length}) | ${median(steady.map((s) => s.processes))} | ${ms(median(steady.map((s) => s.wall)))} |
| a push to one session branch (median of ${PUSHES}; max) | ${median(pushRuns)}; ${Math.max(...pushRuns)} | ${ms(median(pushWalls))}; p90 ${
  ms(percentile(pushWalls, 90))
} |
| the default branch moved on | ${mainMoved.processes} | ${ms(mainMoved.wall)} |
| floor without kept heads: a merge-tree of every pair and with the default branch | ${naive.processes} | ${ms(naive.wall)} |

A push costs ${(median(pushRuns) / naive.processes * 100).toFixed(1)} % of the processes of merging every pair again (${
  median(pushRuns)
} against ${naive.processes}): one
\`for-each-ref\`, one \`log\` for the branch that moved, and a \`merge-tree\` per session it shares a changed file with.
The default branch moving costs a \`log\` per session and a merge per session that shares a file with it.

Accuracy, ${ORDERS} random merge orders × ${SESSIONS} branches (${final.length} predictions at the end: ${conflictPairs.length} conflicts,
${overlapPairs.length} overlaps): a branch is predicted to conflict when a predicted conflict pairs it with the default
branch or with a branch merged before it; it actually conflicts when its \`git merge\` does.

| | actually conflicted | merged cleanly |
|---|---|---|
| predicted conflict | ${tally.tp} | ${tally.fp} |
| not predicted | ${tally.fn} | ${tally.tn} |

Precision ${pct(precision)}, recall ${pct(recall)}.${missed.length > 0 ? ` Missed: ${missed.slice(0, 5).join(", ")}${missed.length > 5 ? " …" : ""}.` : ""}
Branches with only an overlap warning (shared files, no predicted conflict) at their turn: ${tally.overlapOnly}, of which
${tally.overlapOnlyConflicted} conflicted. The prediction is as good as the default branch it reads: the supervisor fetches it at
most once a minute (one more git process then, not counted above), so a PR merged on the repohost shows up to a
minute late. What merges
cleanly but breaks together (a semantic conflict) is not a textual conflict; landing such PRs one at a time on the
current head is the merge train's work.
`
console.log(body)
if (process.env.BENCH_RECORD !== "0") recordSection("Conflict prediction (`bench/conflict-prediction.mjs`)", body)
