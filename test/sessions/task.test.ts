import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionRecord, workLabel, worksAnIssue } from "../../src/domain/session.ts"
import { taskTitle } from "../../src/domain/task.ts"
import { isSafeBranchName } from "../../src/sessions/branch-name.ts"
import { firstFreeBranch, taskSlug } from "../../src/sessions/task.ts"
import { issuesServer } from "../support/issues-server.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { git } from "../support/repo.ts"

describe("a task's slug, branch and title", () => {
  it.each([
    ["Fix the login redirect", "fix-the-login-redirect"],
    ["  Fix   the LOGIN redirect!!  ", "fix-the-login-redirect"],
    ["Réparer l'écran d'accueil", "reparer-l-ecran-d-accueil"],
    ["one two three four five six seven eight", "one-two-three-four-five-six"],
    ["internationalization localization accessibility", "internationalization-localization"],
    ["a".repeat(60), "a".repeat(40)],
    ["42", "task-42"],
    ["42 and 43", "42-and-43"],
    ["修复登录", "task"],
    ["!!!", "task"],
    ["\n first line\nsecond line", "first-line"]
  ])("%j → %s", (text, slug) => {
    assert.strictEqual(taskSlug(text), slug)
    assert.isTrue(isSafeBranchName(`feat/${taskSlug(text)}`))
  })

  it.each([
    [[], "feat/fix"],
    [["feat/fix"], "feat/fix-2"],
    [["feat/fix", "feat/fix-2", "feat/fix-3"], "feat/fix-4"],
    [["feat/fix-2"], "feat/fix"]
  ])("taken %j → %s", (taken, branch) => {
    assert.strictEqual(firstFreeBranch("fix", (b) => taken.includes(b)), branch)
  })

  it("no free branch at all is undefined", () => {
    assert.isUndefined(firstFreeBranch("fix", () => true))
  })

  it.each([
    ["Fix it", "Fix it"],
    ["\n\n  Fix   it  \nmore", "Fix it"],
    ["x".repeat(120), `${"x".repeat(99)}…`]
  ])("title of %j", (text, title) => {
    assert.strictEqual(taskTitle(text), title)
  })
})

describe("orch spawn --task", () => {
  it.live("a session for a task: feat/<slug> (unique), the task as the prompt, the record and status say task", () =>
    Effect.gen(function*() {
      const tracker = yield* issuesServer("acme/app", {})
      const s = yield* sandbox({ trackerUrl: tracker.url })
      const run = yield* s.orch(["spawn", "app", "--task", "Fix the login redirect\n\nUsers land on /404 after logging in."])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "app-1\n")
      assert.strictEqual(run.stderr, "", "a task asks no tracker, so no warning")
      assert.deepStrictEqual(tracker.requests, [])
      assert.deepInclude(s.record("app-1"), {
        issueId: "fix-the-login-redirect",
        task: { title: "Fix the login redirect" },
        branch: "feat/fix-the-login-redirect",
        status: "working"
      })
      assert.strictEqual(git(s.record("app-1").workspacePath, "rev-parse", "--abbrev-ref", "HEAD"), "feat/fix-the-login-redirect")
      const prompt = readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8")
      assert.include(prompt, "Users land on /404 after logging in.")
      assert.include(prompt, "one task of acme/app")
      assert.notInclude(prompt, "Work on issue")
      assert.deepInclude(s.events().at(-1), {
        type: "session.spawned",
        issueId: "fix-the-login-redirect",
        data: {
          branch: "feat/fix-the-login-redirect",
          workspacePath: s.record("app-1").workspacePath,
          agent: "command",
          runtime: "multiplexer",
          task: "Fix the login redirect"
        }
      })

      // The same words again, and from a file: the branch is made unique.
      const file = join(s.root, "task.md")
      writeFileSync(file, "Fix the login redirect\n(second attempt)\n")
      const again = yield* s.orch(["spawn", "app", "--task-file", file, "--json"])
      assert.strictEqual(again.code, 0, again.stderr)
      assert.deepInclude(JSON.parse(again.stdout), {
        sessionId: "app-2",
        issueId: "fix-the-login-redirect-2",
        branch: "feat/fix-the-login-redirect-2",
        task: { title: "Fix the login redirect" }
      })
      assert.include(readFileSync(join(s.dataDir, "sessions", "app", "app-2", "prompt.md"), "utf8"), "(second attempt)")

      const table = (yield* s.orch(["status"])).stdout
      assert.match(table, /^app-1\s+task fix-the-login-redirect\s+feat\/fix-the-login-redirect\s+working/m)

      // batch-spawn's skip logic is about issues: a task whose slug reads like an issue id skips nothing.
      const batch = yield* s.orch(["batch-spawn", "app", "fix-the-login-redirect"])
      assert.notMatch(batch.stdout, /^fix-the-login-redirect: skipped/m)
      assert.match(batch.stdout, /^fix-the-login-redirect: failed: /m)
    }))

  it.live("usage errors: nothing, several forms, an empty task, an unreadable file; each one sentence, exit 2", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
        [["spawn", "app"], "orch: say what the session is for: an issue id (orch spawn <project> 42) or a task (--task \"…\" or --task-file <path>)\n"],
        [["spawn", "app", "4", "--task", "x"], "orch: give one of an issue id, --task or --task-file, not several\n"],
        [["spawn", "app", "--task", "   "], "orch: the task is empty: say what the agent should do in --task \"…\" or in the file of --task-file\n"],
        [
          ["spawn", "app", "--task-file", join(s.root, "missing.md")],
          `orch: cannot read the task file ${join(s.root, "missing.md")} (ENOENT); give a readable file to --task-file\n`
        ]
      ]
      for (const [args, stderr] of cases) {
        const run = yield* s.orch(args)
        assert.deepStrictEqual({ code: run.code, stderr: run.stderr }, { code: 2, stderr }, args.join(" "))
      }
      assert.deepStrictEqual(s.sessions(), [])
    }))

  it.live("through a running supervisor too (the fast path leaves flags to the full CLI)", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)
      // With no git or tmux on its PATH, this command can only succeed by asking the supervisor.
      const run = yield* s.orch(["spawn", "app", "--task", "Write the changelog"], { PATH: "/nonexistent" })
      assert.strictEqual(run.code, 0, run.stderr)
      const id = run.stdout.trim()
      assert.deepInclude(s.record(id), {
        issueId: "write-the-changelog",
        task: { title: "Write the changelog" },
        branch: "feat/write-the-changelog",
        status: "working"
      })
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)
})

describe("tracker: none", () => {
  it.live("orch spawn <project> 42 spawns with the issue id alone: no lookup, no warning, a prompt that says so", () =>
    Effect.gen(function*() {
      const tracker = yield* issuesServer("acme/app", {})
      const s = yield* sandbox({ trackerUrl: tracker.url, project: { tracker: "none", scm: "none" } })
      const run = yield* s.orch(["spawn", "app", "42"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      assert.deepStrictEqual(tracker.requests, [])
      assert.deepInclude(s.record("app-1"), { issueId: "42", branch: "feat/42" })
      const prompt = readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8")
      assert.include(prompt, "Work on issue 42 of acme/app. (The project has no issue tracker orch can read, so there is no issue text here.)")
      assert.include(prompt, "there is no pull request to open")
      assert.notInclude(prompt, "could not be fetched")
    }))
})

describe("records from before tasks and remembered configs", () => {
  it("decode unchanged, and count as issue sessions", () => {
    const old = {
      sessionId: "app-1",
      projectId: "app",
      issueId: "42",
      status: "working",
      activity: "active",
      branch: "feat/42",
      workspacePath: "/w",
      runtime: { plugin: "multiplexer", id: "app-1", data: {} },
      agent: { plugin: "command" },
      pr: null,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z"
    }
    const decoded = Schema.decodeUnknownSync(SessionRecord)(old)
    assert.deepStrictEqual<unknown>(decoded, old)
    assert.isTrue(worksAnIssue(decoded))
    assert.strictEqual(workLabel(decoded), "42")
    const task = Schema.decodeUnknownSync(SessionRecord)({ ...old, issueId: "fix-it", task: { title: "Fix it" }, configPath: "/c.yaml" })
    assert.isFalse(worksAnIssue(task))
    assert.strictEqual(workLabel(task), "task fix-it")
  })
})
