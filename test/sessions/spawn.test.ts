import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { issuesServer } from "../support/issues-server.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { git, gitOk } from "../support/repo.ts"

const ENV_AGENT =
  `env | grep -E '^(ORCH_|GITHUB_TOKEN)' | sort > "$ORCH_WORKSPACE/../agent-env-$ORCH_SESSION_ID"; pwd > "$ORCH_WORKSPACE/../agent-cwd-$ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`

describe("a spawn killed once its session was whole", () => {
  it.live("its owed session.spawned is written by the next command, once, and its journal cleared", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "2"])).code, 0)
      const events = join(s.dataDir, "events.jsonl")
      const lines = readFileSync(events, "utf8").trim().split("\n")
      // As if the spawn of app-1 was killed right after its last record write: its event not written, its journal kept;
      // and as if app-2's was killed after the event, before the journal was cleared.
      const kept = lines.filter((line) => !line.includes(`"sessionId":"app-1"`))
      writeFileSync(events, `${kept.join("\n")}\n`)
      for (const id of ["app-1", "app-2"]) {
        const file = join(s.dataDir, "sessions", "app", id, "session.json")
        writeFileSync(file, JSON.stringify({ ...s.record(id), spawn: { pid: 999999999, startedAt: "2026-11-27T12:00:00.000Z", announce: 0 } }))
      }
      assert.strictEqual((yield* s.orch(["spawn", "app", "3"])).code, 0)
      const spawned = s.events().filter((e) => e.type === "session.spawned").map((e) => e.sessionId)
      assert.deepStrictEqual(spawned.sort(), ["app-1", "app-2", "app-3"])
      for (const id of ["app-1", "app-2", "app-3"]) assert.isUndefined(s.record(id).spawn, id)
    }))
})

describe("orch spawn (real git, tmux, tracker server)", () => {
  it.live("creates worktree, branch, tmux session, prompt, record and event; prints the id", () =>
    Effect.gen(function*() {
      const tracker = yield* issuesServer("acme/app", {
        "12": { title: "Fix the login bug", body: "Users cannot log in.", labels: ["bug"] },
        "13": { title: "Second" }
      })
      const s = yield* sandbox({ agentCommand: ENV_AGENT, trackerUrl: tracker.url, project: { agentRules: "Always run the tests." } })
      const run = yield* s.orch(["spawn", "app", "12"], { GITHUB_TOKEN: "ghp_secret_of_orch" })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "app-1\n")
      assert.strictEqual(run.stderr, "")

      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      assert.strictEqual(git(worktree, "rev-parse", "--abbrev-ref", "HEAD"), "feat/12")
      assert.strictEqual(git(worktree, "rev-parse", "HEAD"), git(s.repo.path, "rev-parse", "origin/main"))
      assert.deepStrictEqual(s.sessions(), ["app-1"])

      const record = s.record("app-1")
      assert.deepInclude(record, {
        sessionId: "app-1",
        projectId: "app",
        issueId: "12",
        status: "working",
        activity: "active",
        branch: "feat/12",
        workspacePath: worktree,
        pr: null,
        issue: { title: "Fix the login bug", url: "https://github.com/acme/app/issues/12" }
      })
      // The handle keeps the pane's process (its pid and start time), so status can tell it is gone without tmux.
      const { pid, pidStart, ...data } = record.runtime!.data as { pid: number; pidStart: string }
      assert.deepStrictEqual({ ...record.runtime, data }, { plugin: "multiplexer", id: "app-1", data: { socket: s.socket } })
      assert.isTrue(Number.isInteger(pid) && pid > 0 && /^\d+$/.test(pidStart))
      assert.strictEqual(record.agent.plugin, "command")
      assert.isUndefined(record.spawn)
      assert.match(record.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

      const prompt = readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8")
      for (const part of ["Fix the login bug", "Users cannot log in.", "Always run the tests.", "feat/12", "CI failures"]) assert.include(prompt, part)

      const envFile = join(s.dataDir, "worktrees", "app", "agent-env-app-1")
      const agentEnv = yield* eventually("the agent's environment", () => existsSync(envFile) && readFileSync(envFile, "utf8"))
      for (
        const line of [
          "ORCH_SESSION_ID=app-1",
          "ORCH_PROJECT_ID=app",
          "ORCH_ISSUE_ID=12",
          "ORCH_BRANCH=feat/12",
          `ORCH_WORKSPACE=${worktree}`,
          `ORCH_DATA_DIR=${join(s.dataDir, "sessions", "app", "app-1")}`
        ]
      ) {
        assert.include(agentEnv, line)
      }
      assert.include(agentEnv, `ORCH_PROMPT_FILE=${join(s.dataDir, "sessions", "app", "app-1", "prompt.md")}`)
      assert.notInclude(agentEnv, "GITHUB_TOKEN", "orch's repohost token must not reach the agent")
      assert.strictEqual(readFileSync(join(s.dataDir, "worktrees", "app", "agent-cwd-app-1"), "utf8").trim(), worktree)

      const [event] = s.events()
      assert.deepInclude(event, { type: "session.spawned", sessionId: "app-1", projectId: "app", issueId: "12" })
      assert.match(event.timestamp, /Z$/)
      assert.strictEqual(tracker.requests[0]?.headers.authorization, "Bearer ghp_secret_of_orch")

      const second = yield* s.orch(["spawn", "app", "#13", "--json"])
      assert.strictEqual(second.code, 0, second.stderr)
      assert.deepInclude(JSON.parse(second.stdout), { sessionId: "app-2", issueId: "13", branch: "feat/13" })
    }))

  it.live("an issue the tracker does not have fails the spawn and leaves nothing", () =>
    Effect.gen(function*() {
      const tracker = yield* issuesServer("acme/app", {})
      const s = yield* sandbox({ trackerUrl: tracker.url })
      const run = yield* s.orch(["spawn", "app", "99"])
      assert.strictEqual(run.code, 1)
      assert.strictEqual(run.stderr, "orch: issue #99 not found in acme/app\n")
      assert.deepStrictEqual(s.sessions(), [])
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/99"))
      assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")))
      assert.deepInclude(s.events()[0], { type: "session.spawn_failed", projectId: "app", issueId: "99" })
    }))

  it.live("an unreachable tracker still spawns, with a warning", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const run = yield* s.orch(["spawn", "app", "7"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stderr, /^orch: warning: repohost .* unavailable: .*spawning with the issue id alone\n$/)
      assert.include(readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8"), "issue 7 of acme/app")
    }))

  it.live("a step failing part-way undoes everything and says what failed", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { postCreate: ["echo preparing; exit 3"] } })
      const run = yield* s.orch(["spawn", "app", "5"])
      assert.strictEqual(run.code, 1)
      assert.match(
        run.stderr,
        /^orch: spawn of app issue 5 failed while creating the workspace \(nothing was left behind\): .*postCreate "echo preparing; exit 3".*exit 3/
      )
      assert.deepStrictEqual(s.sessions(), [])
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/5"))
      assert.isFalse(existsSync(join(s.dataDir, "worktrees", "app", "app-1")))
      assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")))
      assert.strictEqual(git(s.repo.path, "worktree", "list").split("\n").length, 1)
    }))

  it.live("a failed spawn whose undoing also fails says what it could not undo", () =>
    Effect.gen(function*() {
      // The agent locks its branch's ref, then exits: the spawn fails, and deleting the branch it made fails too.
      const s = yield* sandbox({ agentCommand: `touch "$(git rev-parse --git-common-dir)/refs/heads/feat/5.lock"; exit 1` })
      const run = yield* s.orch(["spawn", "app", "5"])
      assert.strictEqual(run.code, 1)
      assert.match(
        run.stderr,
        /^orch: spawn of app issue 5 failed while starting the agent: the agent exited with status 1 as it started, printing nothing; and it could not remove the worktree .*app-1 and its branch feat\/5: .*could not remove reference refs\/heads\/feat\/5/
      )
      assert.notInclude(run.stderr, "nothing was left behind")
      assert.match(s.events().find((e) => e.type === "session.spawn_failed").message, /; and it could not remove the worktree /)
    }))

  it.live("an existing branch is reused unless it is checked out elsewhere", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      git(s.repo.path, "branch", "feat/3")
      assert.strictEqual((yield* s.orch(["spawn", "app", "3"])).code, 0)
      git(s.repo.path, "branch", "feat/4")
      git(s.repo.path, "checkout", "-q", "feat/4")
      const busy = yield* s.orch(["spawn", "app", "4"])
      assert.strictEqual(busy.code, 1)
      assert.include(busy.stderr, `branch feat/4 is already checked out at ${s.repo.path}`)
      assert.isTrue(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/4"), "a branch it did not create is never deleted")
    }))

  it.live("a worktree git still has registered (its directory deleted by hand) is reclaimed, with its branch", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const stale = join(s.dataDir, "worktrees", "app", "app-1")
      git(s.repo.path, "worktree", "add", "-q", "-b", "leftover", stale)
      git(s.repo.path, "worktree", "remove", "--force", stale)
      git(s.repo.path, "worktree", "add", "-q", stale, "leftover")
      rmSync(stale, { recursive: true, force: true })
      const run = yield* s.orch(["spawn", "app", "5"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(git(stale, "rev-parse", "--abbrev-ref", "HEAD"), "feat/5")
      assert.strictEqual(git(stale, "rev-parse", "HEAD"), git(s.repo.path, "rev-parse", "origin/main"))
      const killed = yield* s.orch(["session", "kill", "app-1"])
      assert.strictEqual(killed.code, 0, killed.stderr)

      // The same with the branch existing: git holds it for the deleted worktree until pruned.
      git(s.repo.path, "worktree", "add", "-q", "-b", "feat/6", join(s.root, "gone"))
      rmSync(join(s.root, "gone"), { recursive: true, force: true })
      const reused = yield* s.orch(["spawn", "app", "6"])
      assert.strictEqual(reused.code, 0, reused.stderr)
      assert.strictEqual(git(s.record("app-2").workspacePath, "rev-parse", "--abbrev-ref", "HEAD"), "feat/6")
    }))

  it.live("an unknown project is a usage error", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const run = yield* s.orch(["spawn", "nope", "1"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stderr, `orch: no project "nope" in the config ${s.config} (projects: app)\n`)
    }))

  it.live("with no token in the config or the environment, the GitHub CLI's token is used", () =>
    Effect.gen(function*() {
      const tracker = yield* issuesServer("acme/app", { "3": { title: "Three" } })
      const s = yield* sandbox({ trackerUrl: tracker.url })
      const bin = join(s.root, "bin")
      mkdirSync(bin)
      writeFileSync(join(bin, "gh"), "#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] && echo gho_from_gh_cli\n")
      chmodSync(join(bin, "gh"), 0o755)
      const run = yield* s.orch(["spawn", "app", "3"], { PATH: `${bin}:${process.env.PATH}` })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tracker.requests[0]?.headers.authorization, "Bearer gho_from_gh_cli")
    }))
})
