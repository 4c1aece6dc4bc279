// The merge train against plain auto-merge (issue 24), same run, same scenario (test/merge-train/scenario.ts):
// the repohost emulator, a real supervisor (the built CLI; a fresh HOME, an empty TMUX_TMPDIR, the config in the
// directory orch runs in, no ORCH_* variable), 10 sessions of a scripted `command` agent (test/merge-train/agent.ts)
// whose PRs touch overlapping files: 4 pairs conflict as text, 2 pairs are each green alone and red together (the
// emulator's `ci` rule reads the tree). Once every PR is open and green, all are approved at once. Then, per mode:
// the default branch's commits whose checks fail (the same CI rule on each first-parent commit afterwards), PRs
// merged, the time from the approvals until all mergeable PRs are in, and the requests spent at the repohost (the
// emulator's count, as GitHub counts them). With conflict prediction in the build (`session.conflict_predicted`),
// its precision and recall against the textual conflicts that actually happened when PRs merged.
//
//   node bench/merge-train.mjs [--no-record] [--keep]
//   --keep: each mode's sandbox stays, with its supervisor and the emulator, until Ctrl-C (to look at it)
//   BENCH_CI_MS: how long CI takes (default 1000); BENCH_REVIEW_MS: from all green to the approvals (default 15000)
//
// A mode this build cannot run (no `mergeTrain` setting yet) is said so and not measured.
import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort, machine, ORCH, recordSection, removeSandbox, sleep, waitFor } from "./lib.mjs"

if (!process.features.typescript) {
  console.error(`bench/merge-train.mjs imports test/merge-train/*.ts: it needs a Node that strips types (22.18 or later), not ${process.version}`)
  process.exit(2)
}
const { branchVerdicts, ciVerdict, conflictsAsText, directoryTree, gitTree, INITIAL_TREE, pairKey, REPO, SEMANTIC_PAIRS, TASKS, TEXTUAL_PAIRS, typeErrors } =
  await import(
    "../test/merge-train/scenario.ts"
  )
const { asPair, conflictsThatHappened, mergesOf, predictionScore } = await import("../test/merge-train/outcome.ts")

execFileSync(process.execPath, [new URL("../scripts/build.mjs", import.meta.url).pathname], { stdio: "ignore" })
const { startEmulator } = await import(new URL("../dist/index.mjs", import.meta.url).href)
const AGENT = new URL("../test/merge-train/agent.ts", import.meta.url).pathname
const CI_MS = Number(process.env.BENCH_CI_MS ?? 1000)
/**
 * How long after every PR is open and green everyone approves: review takes time (here little: a person takes minutes),
 * and in that time the supervisor's conflict prediction (a round every 5 s) has looked at the heads.
 */
const REVIEW_MS = Number(process.env.BENCH_REVIEW_MS ?? 15_000)
/** A run is over when every PR is merged, or when nothing moved at the repohost for this long. */
const STALL_MS = 60_000
const run = promisify(execFile)

// What this build has: a project's `mergeTrain` in its config schema, the `predicted-conflict` reaction among the
// defaults `orch config show` fills in.
const features = () => {
  const dir = mkdtempSync(join(tmpdir(), "orch-bench-train-features-"))
  try {
    const config = join(dir, "orchestrator.yaml")
    writeFileSync(config, JSON.stringify({ projects: { app: { repo: REPO, path: dir, agent: "command", agentConfig: { command: "cat" } } } }))
    const env = { HOME: dir, PATH: process.env.PATH }
    const schema = execFileSync(process.execPath, [ORCH, "config", "schema"], { encoding: "utf8", env })
    const shown = execFileSync(process.execPath, [ORCH, "config", "show", config], { encoding: "utf8", env })
    return { train: schema.includes("\"mergeTrain\""), prediction: /^ {2}predicted-conflict:/m.test(shown) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const { train: hasTrain, prediction: hasPrediction } = features()
const KEEP = process.argv.includes("--keep")

const isAncestor = (gitDir, a, b) => {
  try {
    execFileSync("git", ["--git-dir", gitDir, "merge-base", "--is-ancestor", a, b], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const readEvents = (home) => {
  const file = join(home, ".orchestrator", "events.jsonl")
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []
}

/** The repohost's record of the run (outcome.ts RepohostEvent), from its webhooks, in the order it sent them. */
const repohostRecorder = async () => {
  const events = []
  const state = { lastMove: Date.now() }
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      const kind = req.headers["x-github-event"]
      const payload = JSON.parse(body)
      const at = Date.now()
      if (kind === "push" && !payload.deleted) {
        const branch = payload.ref.replace("refs/heads/", "")
        events.push(branch === "main" ? { kind: "base", before: payload.before, after: payload.after, at } : { kind: "head", branch, sha: payload.after, at })
        state.lastMove = at
      }
      if (kind === "pull_request" && payload.action === "closed" && payload.pull_request.merged) {
        events.push({ kind: "merged", branch: payload.pull_request.head.ref, at })
        state.lastMove = at
      }
      res.end()
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { events, state, url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() }
}

const measure = async (mode) => {
  const root = mkdtempSync(join(tmpdir(), `orch-bench-train-${mode}-`))
  const home = join(root, "home")
  const tmux = join(root, "tmux")
  mkdirSync(home)
  mkdirSync(tmux, { mode: 0o700 })
  const socket = join(tmux, `tmux-${process.getuid()}`, "default")
  const env = { HOME: home, PATH: process.env.PATH, TMUX_TMPDIR: tmux, LANG: "C.UTF-8" }
  const origin = join(root, "origin.git")
  const repo = join(root, "app")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  execFileSync("git", ["init", "-q", "-b", "main", repo])
  const tree = directoryTree(repo)
  for (const [path, text] of Object.entries(INITIAL_TREE)) tree.write(path, text)
  const git = (...args) => execFileSync("git", ["-C", repo, "-c", "user.email=b@b", "-c", "user.name=b", ...args], { stdio: "ignore" })
  git("add", "-A")
  git("commit", "-qm", "initial")
  git("remote", "add", "origin", origin)
  git("push", "-q", "origin", "main")

  const recorder = await repohostRecorder()
  const [port, terminalPort, directTerminalPort] = [await freePort(), await freePort(), await freePort()]
  const secret = "bench-secret"
  const emulator = await startEmulator({
    repos: [{ repo: REPO, gitDir: origin }],
    ci: ({ files, read }) => ciVerdict({ files: () => files, read }),
    ciDelayMs: CI_MS,
    webhooks: [{ url: `http://127.0.0.1:${port}/webhooks/repohost`, secret }, { url: recorder.url, secret }]
  })
  const repohost = { plugin: "repohost", apiUrl: emulator.url, token: "bench" }
  // JSON is YAML.
  writeFileSync(
    join(root, "orchestrator.yaml"),
    JSON.stringify({
      port,
      terminalPort,
      directTerminalPort,
      pollIntervalMs: 5000,
      defaults: { notifiers: ["hosted"] },
      reactions: { "approved-and-green": { action: "auto-merge", auto: true } },
      projects: {
        app: {
          repo: REPO,
          path: repo,
          agent: "command",
          agentConfig: { command: `"${process.execPath}" "${AGENT}" --api ${emulator.url}` },
          tracker: repohost,
          scm: { ...repohost, webhookSecret: secret },
          ...(mode === "train" ? { mergeTrain: true } : {})
        }
      }
    })
  )
  const orch = (...args) => run(process.execPath, [ORCH, ...args], { cwd: root, env, encoding: "utf8" })
  try {
    for (const task of TASKS) {
      const number = emulator.addIssue(REPO, { title: task.title, body: task.title })
      if (number !== task.issue) throw new Error(`the emulator numbered issue "${task.title}" ${number}, not ${task.issue}`)
    }
    await orch("start", "app", "--detach", "--no-open")
    await orch("batch-spawn", "app", ...TASKS.map((t) => String(t.issue)))
    const sessions = await waitFor(
      "10 sessions spawned",
      () => {
        const spawned = readEvents(home).filter((e) => e.type === "session.spawned" && e.data?.role === undefined && e.issueId !== undefined)
        return spawned.length === TASKS.length ? spawned : undefined
      },
      300_000,
      500
    )
    console.log(`${mode}: 10 sessions spawned`)
    const sessionOf = new Map(sessions.map((e) => [e.data.branch, e.sessionId]))
    const taskOf = new Map(sessions.map((e) => [e.data.branch, Number(e.issueId)]))
    const taskOfSession = new Map(sessions.map((e) => [e.sessionId, Number(e.issueId)]))
    const pulls = await waitFor(
      "every PR open and green",
      () => {
        const found = sessions.map((e) => emulator.pullForBranch(REPO, e.data.branch))
        return found.every((p) => p !== undefined && emulator.snapshot(REPO, p.number).ci === "success") ? found : undefined
      },
      300_000,
      200
    )

    console.log(`${mode}: 10 PRs open and green; all approved in ${REVIEW_MS / 1000} s`)
    await sleep(REVIEW_MS)
    // Everyone approves at once.
    const before = { ...emulator.stats, requests: emulator.requests.length }
    const approvedAt = Date.now()
    recorder.state.lastMove = approvedAt
    for (const pull of pulls) emulator.review(REPO, pull.number, "APPROVED", "Looks good.")
    const merged = () => pulls.filter((p) => emulator.pull(REPO, p.number)?.merged)
    // The repohost's counters as they stood at the last merge: what getting the PRs in cost, not the idle wait after.
    let atLastMerge = { ...emulator.stats, requests: emulator.requests.length }
    let count = 0
    while (count < pulls.length && Date.now() - recorder.state.lastMove < STALL_MS) {
      await sleep(100)
      if (merged().length > count) {
        count = merged().length
        atLastMerge = { ...emulator.stats, requests: emulator.requests.length }
        console.log(`${mode}: ${count} of ${pulls.length} merged after ${((Date.now() - approvedAt) / 1000).toFixed(1)} s`)
      }
    }
    const allIn = count === pulls.length
    if (!allIn) console.log(`${mode}: nothing moved at the repohost for ${STALL_MS / 1000} s; ${count} of ${pulls.length} merged`)
    await emulator.idle()
    await emulator.settled()

    const requests = emulator.requests.slice(before.requests, atLastMerge.requests)
    const events = readEvents(home)
    const mergeTimes = recorder.events.filter((e) => e.kind === "merged").map((e) => e.at)
    const happened = conflictsThatHappened(recorder.events, (a, b) => conflictsAsText(origin, a, b))
    const verdicts = branchVerdicts(origin, "main")
    // Heads the repohost's update-branch made (the base merged into the PR), and those of them whose checks failed.
    const updatedHeads = recorder.events.filter((e) =>
      e.kind === "head" &&
      execFileSync("git", ["--git-dir", origin, "log", "-1", "--format=%s", e.sha], { encoding: "utf8" }).startsWith("Merge branch 'main' into")
    )
    const redUpdated = updatedHeads.filter((e) => typeErrors(gitTree(origin, e.sha)).length > 0)
    const merges = mergesOf(recorder.events)
    const mergedHeads = new Set(merges.map((m) => m.head))
    // A merge whose head lacked the base it merged onto: its checks never ran on what main became.
    const behind = merges.filter((m) => !isAncestor(origin, m.base, m.head)).map((m) => taskOf.get(m.branch))
    return {
      mode,
      merged: merged().length,
      // Why each PR left open is: what fails on its head (a failure not its own shows whose it is), or its conflict.
      unmerged: pulls.filter((p) => !emulator.pull(REPO, p.number)?.merged).map((p) => {
        const head = emulator.snapshot(REPO, p.number).headSha
        return {
          task: taskOf.get(p.head),
          failing: typeErrors(gitTree(origin, head))[0] ?? (conflictsAsText(origin, "main", head) ? "conflicts with main" : "green and mergeable")
        }
      }),
      allIn,
      lastMergeS: mergeTimes.length === 0 ? undefined : (Math.max(...mergeTimes) - approvedAt) / 1000,
      commits: verdicts.length,
      broken: verdicts.filter((v) => v.failing).length,
      firstBroken: verdicts.findIndex((v) => v.failing),
      rest: atLastMerge.counted - before.counted,
      notModified: atLastMerge.notModified - before.notModified,
      graphql: atLastMerge.graphqlQueries - before.graphqlQueries,
      merges: requests.filter((r) => r.method === "PUT" && r.url.endsWith("/merge")).length,
      updates: requests.filter((r) => r.method === "PUT" && r.url.endsWith("/update-branch")).length,
      behind,
      redUpdated: redUpdated.map((e) => taskOf.get(e.branch)),
      redUpdatedMerged: redUpdated.filter((e) => mergedHeads.has(e.sha)).length,
      trainLeft: events.filter((e) => e.type === "train.left").map((e) => e.data?.reason ?? e.message ?? "?"),
      happened: happened.map((h) => asPair(h, (branch) => sessionOf.get(branch) ?? branch)),
      happenedTasks: happened.map((h) => pairKey(taskOf.get(h.merged), taskOf.get(h.other))),
      predictions: predictionsOf(events, "conflict"),
      overlaps: [...new Set(predictionsOf(events, "overlap").map((p) => p.pair))].map((pair) => pairKey(...pair.split("+").map((id) => taskOfSession.get(id))))
    }
  } finally {
    if (KEEP) {
      console.log(`${mode}: kept ${root} (HOME=${home} TMUX_TMPDIR=${tmux}); Ctrl-C ends the emulator`)
      await new Promise((resolve) => process.once("SIGINT", resolve))
    }
    await orch("stop", "--kill-sessions").catch(() => {})
    await emulator.close()
    recorder.close()
    removeSandbox(root, socket)
  }
}

/** Predictions between two sessions (`session.conflict_predicted` of `kind` conflict or overlap), as pairs. */
const predictionsOf = (events, kind) =>
  events.filter((e) => e.type === "session.conflict_predicted" && e.data?.kind === kind && e.data.sessions?.length === 2).map((e) => ({
    pair: pairKey(...e.data.sessions),
    at: Date.parse(e.timestamp)
  }))

const results = [await measure("auto-merge")]
if (hasTrain) results.push(await measure("train"))
else console.log("merge train: not measured — this build has no `mergeTrain` setting (orch config schema)")

const seconds = (s) => `${s.toFixed(1)} s`
const row = (r) =>
  `| ${r.mode === "train" ? "merge train (`mergeTrain: true`)" : "plain auto-merge (`approved-and-green: auto-merge`)"} | ${r.merged} of 10 | ${
    r.allIn
      ? seconds(r.lastMergeS)
      : `never: ${10 - r.merged} stay${r.merged === 9 ? "s" : ""} open (${
        r.unmerged.map((u) => `task ${u.task}: \`${u.failing}\``).join("; ")
      }); the last merge at ${r.lastMergeS === undefined ? "—" : seconds(r.lastMergeS)}`
  } | ${r.behind.length}${r.behind.length > 0 ? ` (tasks ${r.behind.join(", ")})` : ""} | ${r.commits} | **${r.broken}**${
    r.firstBroken >= 0 ? ` (the first at merge ${r.firstBroken + 1})` : ""
  } | ${r.rest + r.graphql} (${r.graphql} GraphQL, ${r.rest} REST; +${r.notModified} free 304s) | ${r.merges} / ${r.updates} |`
const score = (r) => {
  const s = predictionScore(r.predictions, r.happened)
  const pct = (v) => (v === undefined ? "—" : `${(v * 100).toFixed(0)}%`)
  return `| ${r.mode} | ${s.predicted} | ${s.correct} | ${pct(s.precision)} | ${s.happened} (${r.happenedTasks.join(", ") || "none"}) | ${s.foreseen} | ${
    pct(s.recall)
  } | ${r.overlaps.length} (${r.overlaps.join(", ") || "none"}) |`
}
const body = [
  `${machine()}, ${new Date().toISOString().slice(0, 10)}. The emulator as the repohost (CI takes ${CI_MS} ms, branches need not be up to date), a real`,
  "supervisor (built CLI, fresh HOME, empty TMUX_TMPDIR, webhooks and a 5 s poll), 10 sessions of a scripted agent (test/merge-train/agent.ts) whose",
  `PRs touch overlapping files: the pairs ${TEXTUAL_PAIRS.join(", ")} (tasks) conflict as text, ${SEMANTIC_PAIRS.join(" and ")} are each green alone and`,
  "red together (test/merge-train/scenario.ts). Told of a conflict or a failing check, the agent makes its change again on the default branch and",
  "force-pushes, so every PR is mergeable while main is green. All 10 are approved at once, " +
  `${REVIEW_MS / 1000} s after the last is open and green; times and requests count from then.`,
  "",
  "| mode | PRs merged | until all mergeable PRs are in | merged on a head behind main | commits on main | of which checks fail | requests spent until the last merge (counted) | merges / branch updates |",
  "|---|---|---|---|---|---|---|---|",
  ...results.map(row),
  "",
  results[0].broken > 0
    ? "Plain auto-merge merges each PR green on the base its checks ran on: once a semantic pair's second half is in, main fails, and every\n" +
      "PR that then has to rebase (a textual conflict) carries main's failure into its own checks and cannot merge."
    : "Plain auto-merge left main green in this run.",
  "",
  hasTrain
    ? `Train: ${results[1].updates} branch updates, of which ${results[1].redUpdated.length} gave a head whose checks failed (tasks ${
      results[1].redUpdated.join(", ") || "none"
    }: green alone, red on the new main), ${
      results[1].redUpdatedMerged === 0 ? "none of them merged" : `**${results[1].redUpdatedMerged} of them merged**`
    }; a PR left the train ${results[1].trainLeft.length} time(s)${results[1].trainLeft.length > 0 ? ` (${results[1].trainLeft.join("; ")})` : ""}. ${
      results[1].allIn
        ? `One car at a time: ${seconds(results[1].lastMergeS / 10)} a PR on average, with CI taking ${CI_MS} ms.`
        : ""
    }`
    : "The merge train is not measured: this build has no `mergeTrain` setting yet.",
  "",
  hasPrediction
    ? [
      "Conflict prediction (`session.conflict_predicted`, pairs of sessions) against the textual conflicts that happened when a merge moved main",
      "(an open head that merged cleanly into the old main and conflicts with the new one, by `git merge-tree`); correct = predicted before it happened.",
      "",
      "| mode | pairs predicted to conflict | of them conflicted later | precision | conflicts that happened (tasks) | foreseen | recall | overlaps without conflict shown (tasks) |",
      "|---|---|---|---|---|---|---|---|",
      ...results.map(score)
    ].join("\n")
    : `Conflict prediction is not in this build (no \`predicted-conflict\` reaction); the textual conflicts that happened (tasks): ${
      results.map((r) => `${r.mode}: ${r.happenedTasks.join(", ") || "none"}`).join("; ")
    }.`
].join("\n")
if (!process.argv.includes("--no-record")) recordSection("Merge train (`bench/merge-train.mjs`)", body)
console.log(body)
