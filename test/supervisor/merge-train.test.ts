/**
 * The merge train against the repohost emulator with real git, tmux and the built CLI: two PRs green alone and red
 * together, both approved. The train merges the first on main as it is; the second, brought up to date with that
 * main, goes red there, leaves the train (its agent hears of it through ci-failed), and main stays green.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { ECHO_AGENT, sandbox } from "../support/orch-sandbox.ts"
import { git, gitAsync } from "../support/repo.ts"

describe("the merge train on the emulator", () => {
  it.live("green alone, red together: the first merges, the second's updated head goes red and it leaves; main stays green", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: ECHO_AGENT })
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startEmulator({
            repos: [{ repo: "acme/app", gitDir: s.repo.origin }],
            ci: ({ files }) => (files.includes("x.txt") && files.includes("y.txt") ? { conclusion: "failure", title: "x and y disagree" } : "success")
          })
        ),
        (e) => Effect.promise(() => e.close())
      )
      const issues = [emulator.addIssue("acme/app", { title: "Add x" }), emulator.addIssue("acme/app", { title: "Add y" })]
      s.writeConfig({
        tracker: { plugin: "repohost", apiUrl: emulator.url },
        scm: { plugin: "repohost", apiUrl: emulator.url },
        mergeTrain: true,
        reactions: { "approved-and-green": { action: "auto-merge", auto: true } }
      })
      writeFileSync(s.config, `pollIntervalMs: 1000\n${readFileSync(s.config, "utf8")}`)
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const prs: Array<number> = []
      for (const [i, issue] of issues.entries()) {
        const spawned = yield* s.orch(["spawn", "app", String(issue)])
        assert.strictEqual(spawned.code, 0, spawned.stderr)
        const worktree = join(s.dataDir, "worktrees", "app", `app-${i + 1}`)
        writeFileSync(join(worktree, i === 0 ? "x.txt" : "y.txt"), "work\n")
        git(worktree, "add", ".")
        git(worktree, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", `add ${i === 0 ? "x" : "y"}`)
        yield* gitAsync(worktree, "push", "-q", "origin", `HEAD:feat/${issue}`)
        const created = yield* Effect.promise(() =>
          fetch(`${emulator.url}/repos/acme/app/pulls`, {
            method: "POST",
            body: JSON.stringify({ head: `feat/${issue}`, base: "main", title: `issue ${issue}` })
          })
            .then((r) => r.json() as Promise<{ number: number }>)
        )
        prs.push(created.number)
      }
      const types = () => s.events().map((e) => e.type)
      yield* eventually("both PRs green", () => s.events().filter((e) => e.type === "ci.passed").length >= 2, 20_000)
      for (const pr of prs) emulator.review("acme/app", pr, "APPROVED")

      yield* eventually("the first merged by the train", () => types().includes("train.merged"), 30_000)
      const merged = s.events().find((e) => e.type === "train.merged")
      yield* eventually("the second leaves, red on its updated head", () => types().includes("train.left"), 30_000)
      const left = s.events().find((e) => e.type === "train.left")
      assert.notStrictEqual(left.prNumber, merged.prNumber)
      assert.match(left.data.reason, /^its checks failed on [0-9a-f]{7}, up to date with [0-9a-f]{7} \(ci\)$/)
      assert.isFalse(emulator.pull("acme/app", left.prNumber)?.merged, "the red PR is not merged")
      assert.isTrue(emulator.pull("acme/app", merged.prNumber)?.merged)
      assert.include(types(), "train.updated")
      assert.isFalse(s.events().some((e) => e.type === "pr.merged" && e.prNumber === left.prNumber))

      // main has the first PR alone, and its checks passed there.
      git(s.repo.path, "fetch", "-q", "origin")
      const main = git(s.repo.path, "rev-parse", "origin/main")
      assert.strictEqual(git(s.repo.path, "log", "-1", "--format=%s", "origin/main"), `issue ${issues[prs.indexOf(merged.prNumber)]} (#${merged.prNumber})`)
      const mainRuns = () =>
        fetch(`${emulator.url}/repos/acme/app/commits/${main}/check-runs`).then(async (r) =>
          ((await r.json()) as { check_runs: Array<{ status: string; conclusion: string | null }> }).check_runs
        )
      yield* Effect.promise(() => emulator.idle())
      assert.deepStrictEqual((yield* Effect.promise(mainRuns)).map((run) => run.conclusion), ["success"])

      // The leaver's agent is told by ci-failed; orch train ls shows an empty train.
      const leaver = `app-${prs.indexOf(left.prNumber) + 1}`
      yield* eventually("ci-failed in the leaver's terminal", () => s.screen(leaver).includes("x and y disagree"), 20_000)
      const ls = yield* s.orch(["train", "ls", "--json"])
      assert.strictEqual(ls.code, 0, ls.stderr)
      assert.deepStrictEqual(JSON.parse(ls.stdout), [{ projectId: "app", cars: [] }])
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 120_000)
})
