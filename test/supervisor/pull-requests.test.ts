/**
 * The PR path end to end, against the repohost emulator: a session's branch gets a PR, CI fails and the agent is
 * told which check failed, a fix turns it green, an approval with `auto-merge` merges it in the real repository.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { signature } from "../../src/dashboard/webhooks.ts"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { ECHO_AGENT, sandbox } from "../support/orch-sandbox.ts"
import { git, gitAsync } from "../support/repo.ts"

describe("pull requests through the repohost emulator", () => {
  it.live("ci-failed reaches the agent with the failing check; green and approved merges with auto-merge", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: ECHO_AGENT })
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }], ci: ({ message }) => (message.includes("[fail]") ? "failure" : "success") })
        ),
        (e) => Effect.promise(() => e.close())
      )
      const issue = emulator.addIssue("acme/app", { title: "Make the answer 2" })
      s.writeConfig({ tracker: { plugin: "repohost", apiUrl: emulator.url }, scm: { plugin: "repohost", apiUrl: emulator.url } })
      writeFileSync(s.config, `pollIntervalMs: 1000\nreactions:\n  approved-and-green:\n    action: auto-merge\n${readFileSync(s.config, "utf8")}`)

      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const spawned = yield* s.orch(["spawn", "app", String(issue)])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      const commit = (message: string) => {
        git(worktree, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", message)
        return gitAsync(worktree, "push", "-q", "origin", `HEAD:feat/${issue}`)
      }
      yield* commit("answer is 3 [fail]")
      const created = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, {
          method: "POST",
          body: JSON.stringify({ head: `feat/${issue}`, base: "main", title: "Make the answer 2" })
        })
      )
      assert.strictEqual(created.status, 201)
      const prNumber = ((yield* Effect.promise(() => created.json())) as { number: number }).number

      yield* eventually("the failing check in the agent's terminal", () => s.screen("app-1").includes("got: - ci: 1 test failed"), 20_000)
      assert.include(s.screen("app-1"), "got: CI is failing on your pull request")
      const types = () => s.events().map((e) => e.type)
      // The reaction is recorded once the message is delivered, just after it shows on the screen.
      yield* eventually("the reaction in the event log", () => types().includes("reaction.triggered"), 5_000)
      assert.includeMembers(types(), ["pr.created", "ci.failed"])
      assert.deepInclude(s.events().find((e) => e.type === "reaction.triggered"), { reaction: "ci-failed", action: "send-to-agent", sessionId: "app-1" })
      assert.strictEqual(s.record("app-1").status, "ci_failed")
      yield* eventually("the budget in orch status", () => existsSync(join(s.dataDir, "repohost.json")), 10_000)
      assert.match((yield* s.orch(["status"])).stdout, /^repohost budget: app \d+\/5000 (requests|GraphQL points) left, resets \d\d:\d\d UTC$/m)

      yield* commit("answer is 2")
      yield* eventually("CI to pass", () => types().includes("ci.passed"), 20_000)
      emulator.review("acme/app", prNumber, "CHANGES_REQUESTED", "Almost there.", [{ path: "src/answer.ts", line: 3, body: "Name the constant." }])
      yield* eventually("the review comments in the agent's terminal", () =>
        s.screen("app-1").includes("got: - reviewer on src/answer.ts:3: Name the constant."), 20_000)
      assert.include(s.screen("app-1"), "got: - reviewer: Almost there.")
      assert.strictEqual(s.record("app-1").status, "changes_requested")
      emulator.review("acme/app", prNumber, "APPROVED")
      yield* eventually("the merge", () =>
        types().includes("pr.merged"), 20_000)
      assert.isTrue(emulator.pull("acme/app", prNumber)?.merged)
      git(s.repo.path, "fetch", "-q", "origin")
      assert.strictEqual(git(s.repo.path, "log", "-1", "--format=%s", "origin/main"), `Make the answer 2 (#${prNumber})`)
      assert.strictEqual(s.record("app-1").status, "merged")
      yield* eventually("the merged session's cleanup", () =>
        s.record("app-1").endedAt !== undefined && !s.sessions().includes("app-1"), 20_000)
      assert.deepInclude(s.events().find((e) => e.type === "session.cleaned"), { sessionId: "app-1", message: `PR #${prNumber} merged` })
      assert.isAbove(emulator.stats.graphqlQueries, 0, "PRs are observed by the batched GraphQL query")
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)

  it.live("a signed webhook makes the supervisor look at the PR at once; a bad signature is 401", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: ECHO_AGENT })
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }], ci: () => "failure" })),
        (e) => Effect.promise(() => e.close())
      )
      s.writeConfig({
        tracker: { plugin: "repohost", apiUrl: emulator.url },
        scm: { plugin: "repohost", apiUrl: emulator.url, webhookSecret: "${HOOK_SECRET}" }
      })
      // A poll far away: only the webhook can bring the news in time.
      writeFileSync(s.config, `pollIntervalMs: 600000\n${readFileSync(s.config, "utf8")}`)
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"], { HOOK_SECRET: "hook-s3cret" })).code, 0)
      emulator.addIssue("acme/app", { title: "Issue one" })
      const spawned = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      const payload = JSON.stringify({ action: "opened", repository: { full_name: "acme/app" }, pull_request: { head: { ref: "feat/1" } } })
      const deliver = (sig: string, delivery: string) =>
        Effect.promise(() =>
          fetch(`http://127.0.0.1:${s.port}/webhooks/repohost`, {
            method: "POST",
            headers: { "x-github-event": "pull_request", "x-github-delivery": delivery, "x-hub-signature-256": sig, "content-type": "application/json" },
            body: payload
          })
        )
      assert.strictEqual((yield* deliver(signature("wrong", payload), "d0")).status, 401)
      assert.strictEqual((yield* deliver(signature("hook-s3cret", payload), "d1")).status, 202)
      assert.strictEqual((yield* deliver(signature("hook-s3cret", payload), "d1")).status, 200, "a replayed delivery is ignored")

      // From here the emulator delivers, as GitHub would: the push, the PR, the failed check run.
      emulator.addWebhook({ url: `http://127.0.0.1:${s.port}/webhooks/repohost`, secret: "hook-s3cret" })
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      git(worktree, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", "wip")
      yield* gitAsync(worktree, "push", "-q", "origin", "HEAD:feat/1")
      const start = Date.now()
      yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: "feat/1", base: "main", title: "wip" }) })
      )
      yield* eventually("the CI failure in the agent's terminal", () => s.screen("app-1").includes("got: CI is failing on your pull request"), 10_000)
      assert.isBelow(Date.now() - start, 5000)
      yield* Effect.promise(emulator.settled)
      assert.isTrue(emulator.deliveries.every((d) => d.status === 202 || d.status === 200), JSON.stringify(emulator.deliveries))
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)

  it.live("a PR that stops merging cleanly sends the agent to rebase; a closed issue ends the session", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: ECHO_AGENT })
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const issue = emulator.addIssue("acme/app", { title: "Conflicting work" })
      s.writeConfig({ tracker: { plugin: "repohost", apiUrl: emulator.url }, scm: { plugin: "repohost", apiUrl: emulator.url } })
      writeFileSync(s.config, `pollIntervalMs: 1000\n${readFileSync(s.config, "utf8")}`)
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", String(issue)])).code, 0)
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      git(worktree, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", "work")
      yield* gitAsync(worktree, "push", "-q", "origin", `HEAD:feat/${issue}`)
      const created = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: `feat/${issue}`, base: "main", title: "work" }) }).then((
          r
        ) => r.json() as Promise<{ number: number }>)
      )
      yield* eventually("the PR seen", () => s.events().some((e) => e.type === "pr.created"), 10_000)

      emulator.setConflicts("acme/app", created.number, true)
      yield* eventually("the rebase message in the agent's terminal", () => s.screen("app-1").includes("got: Your branch has merge conflicts."), 10_000)
      assert.deepInclude(s.events().find((e) => e.type === "merge.conflicts"), { sessionId: "app-1", prNumber: created.number })

      emulator.closeIssue("acme/app", issue, "NOT_PLANNED")
      // through the supervisor: its answer carries the status the session got
      const cleaned = yield* s.orch(["session", "cleanup"])
      assert.strictEqual(cleaned.code, 0, cleaned.stderr)
      assert.strictEqual(cleaned.stdout, `cleaned app-1 (done): issue ${issue} is closed (not planned)\n`)
      assert.deepInclude(s.events().find((e) => e.type === "session.cleaned"), {
        sessionId: "app-1",
        message: `issue ${issue} is closed (not planned)`,
        data: { status: "done", cause: "issue-completed" }
      })
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)
})
