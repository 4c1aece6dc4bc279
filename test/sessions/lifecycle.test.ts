import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { ECHO_AGENT, sandbox } from "../support/orch-sandbox.ts"
import { git, gitOk } from "../support/repo.ts"

describe("orch send", () => {
  it.live("delivers a message into the agent's terminal and confirms it", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      yield* eventually("the agent to start", () => s.screen("app-1").includes("ready app-1"))
      const sent = yield* s.orch(["send", "app-1", "please", "fix", "the", "tests"])
      assert.strictEqual(sent.code, 0, sent.stderr)
      assert.strictEqual(sent.stdout, "delivered to app-1\n")
      assert.include(s.screen("app-1"), "got: please fix the tests")

      const file = join(s.root, "message.txt")
      writeFileSync(file, "from a file\n")
      assert.strictEqual((yield* s.orch(["send", "app-1", "--file", file])).code, 0)
      assert.include(s.screen("app-1"), "got: from a file")
      assert.deepInclude(s.events().at(-1), { type: "session.message_sent", sessionId: "app-1", message: "from a file\n" })
    }))

  it.live("an unknown session, a dead one and an empty message each say so", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const unknown = yield* s.orch(["send", "app-7", "hi"])
      assert.strictEqual(unknown.code, 1)
      assert.strictEqual(unknown.stderr, "orch: no session app-7\n")
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      yield* eventually("the agent to start", () => s.screen("app-1").includes("ready app-1"))
      execFileSync("tmux", ["-S", s.socket, "send-keys", "-t", "=app-1:", "C-d"])
      yield* eventually("the agent to exit", () =>
        execFileSync("tmux", ["-S", s.socket, "list-panes", "-a", "-F", "#{pane_dead}"], { encoding: "utf8" }).trim() === "1")
      const dead = yield* s.orch(["send", "app-1", "hi"])
      assert.strictEqual(dead.code, 1)
      assert.match(dead.stderr, /^orch: session app-1 is not running \(its agent exited\); `orch session restore app-1` starts it again\n$/)
      const empty = yield* s.orch(["send", "app-1"])
      assert.strictEqual(empty.code, 2)
    }))
})

describe("orch spawn of an agent that cannot run", () => {
  it.live("a program that is not installed fails before anything is made", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: "no-such-agent-cli --task x" })
      const run = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(run.code, 1)
      assert.strictEqual(
        run.stderr,
        "orch: spawn of app issue 1 failed while checking the agent (nothing was left behind): no-such-agent-cli is not installed (not found on PATH); install it, or set agentConfig.command to its full path\n"
      )
      assert.deepStrictEqual(s.sessions(), [])
      assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")))
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/1"))
    }))

  it.live("an agent that exits at once fails the spawn with what it printed, quoted, and leaves nothing", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: "echo 'error: this agent cannot be used with root' >&2; exit 3" })
      const run = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(run.code, 1)
      assert.strictEqual(
        run.stderr,
        "orch: spawn of app issue 1 failed while starting the agent (nothing was left behind): the agent exited with status 3 as it started; it printed:\n  > error: this agent cannot be used with root\n"
      )
      assert.deepStrictEqual(s.sessions(), [])
      assert.isFalse(existsSync(join(s.dataDir, "worktrees", "app", "app-1")))
      assert.deepInclude(s.events().at(-1), { type: "session.spawn_failed", issueId: "1" })
    }))

  it.live("restore of an agent that now exits at once says so and keeps the session as it was", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      s.writeConfig({ agentConfig: { command: "echo 'Unable to connect'; exit 1" } })
      const run = yield* s.orch(["session", "restore", "app-1"])
      assert.strictEqual(run.code, 1)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(run.stderr, "orch: session app-1 was not restored: the agent exited with status 1 as it started; it printed:\n  > Unable to connect\n")
      assert.deepInclude(s.record("app-1"), { status: "killed" })
      assert.deepStrictEqual(s.sessions(), [])
    }))
})

describe("orch batch-spawn", () => {
  it.live("one session per issue, skipping issues with a live session and repeats; a failure makes exit 1", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      git(s.repo.path, "branch", "feat/4")
      git(s.repo.path, "checkout", "-q", "feat/4")
      const run = yield* s.orch(["batch-spawn", "app", "1", "2", "3", "2", "4"])
      assert.strictEqual(run.code, 1)
      const lines = run.stdout.trim().split("\n")
      assert.includeMembers(lines, ["1: skipped, app-1 is already on it"])
      assert.isTrue(lines.some((l) => /^2: created app-\d \(feat\/2\)/.test(l)))
      assert.isTrue(lines.some((l) => /^3: created app-\d \(feat\/3\)/.test(l)))
      assert.isTrue(lines.some((l) => l.startsWith("4: failed: ") && l.includes("already checked out")))
      assert.strictEqual(lines.at(-1), "created 2, skipped 1, failed 1")
      assert.strictEqual(run.stderr, "orch: 1 spawn failed\n")
      assert.deepStrictEqual(s.sessions().sort(), ["app-1", "app-2", "app-3"])
      const dropped = s.events().filter((e) => e.type === "queue.dropped")
      assert.deepStrictEqual(dropped.map((e) => e.issueId), ["4"], "the failed issue left the queue, saying why")
      assert.include(dropped[0]!.message, "orch batch-spawn could not start it")
      assert.deepStrictEqual(JSON.parse((yield* s.orch(["queue", "ls", "--json"])).stdout), [])
    }))

  it.live("a batch-spawn killed with SIGKILL half-way, no supervisor: every issue it had not started waits in the queue", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { postCreate: ["touch ../started-$(basename $PWD); sleep 30"] } })
      const child = s.orchAsync(["batch-spawn", "app", "1", "2", "3", "4", "5", "6"])
      yield* eventually("a spawn of the batch to reach postCreate", () => {
        const worktrees = join(s.dataDir, "worktrees", "app")
        return existsSync(worktrees) && readdirSync(worktrees).some((f) => f.startsWith("started-"))
      }, 20_000)
      child.kill("SIGKILL")
      yield* Effect.callback<void>((resume) => {
        child.on("exit", () => resume(Effect.void))
      })
      type Listed = { id: string; issue: string; admitting?: { sessionId: string } }
      const ls = yield* s.orch(["queue", "ls", "--json"])
      assert.strictEqual(ls.code, 0, ls.stderr)
      // Right after the kill: the whole batch is in the queue, those it was starting marked so.
      const listed = JSON.parse(ls.stdout) as Array<Listed>
      assert.deepStrictEqual(listed.map((e) => e.issue).sort(), ["1", "2", "3", "4", "5", "6"])
      assert.isTrue(listed.some((e) => e.admitting !== undefined), "the spawns under way claimed their entries")

      // The next command that changes sessions recovers: the spawns cut short are undone, their entries wait again.
      s.writeConfig({ postCreate: [] })
      const rm = yield* s.orch(["queue", "rm", "6"])
      assert.strictEqual(rm.code, 0, rm.stderr)
      const after = JSON.parse((yield* s.orch(["queue", "ls", "--json"])).stdout) as Array<Listed>
      assert.deepStrictEqual(after.map((e) => [e.issue, e.admitting]), [["1", undefined], ["2", undefined], ["3", undefined], ["4", undefined], [
        "5",
        undefined
      ]])
      assert.isAbove(s.events().filter((e) => e.type === "queue.recovered").length, 0)
      assert.deepStrictEqual(readdirSync(join(s.dataDir, "sessions", "app")), [], "no half-made session is left")
      const status = yield* s.orch(["status"])
      assert.include(status.stdout, "Queued (5):")
    }), 60_000)
})

describe("orch session kill / restore / cleanup", () => {
  it.live(
    "a kill through the supervisor whose client is killed is carried out whole; a kill of a start cut short says it was undone",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox()
        assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
        assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
        const worktree = join(s.dataDir, "worktrees", "app", "app-1")
        // Enough unsaved files that the rescue takes a moment: the client is killed as soon as the kill is under way.
        for (let i = 0; i < 2000; i++) writeFileSync(join(worktree, `f${i}.txt`), `${i}\n`)
        const client = s.orchAsync(["session", "kill", "app-1"])
        yield* eventually("the kill under way", () => s.record("app-1").killing !== undefined, 20_000)
        client.kill("SIGKILL")
        yield* eventually("the kill finished by the supervisor", () => s.record("app-1").status === "killed" && s.record("app-1").killing === undefined, 30_000)
        assert.deepInclude(s.record("app-1"), { rescueRef: "refs/orch/rescue/app-1" })
        assert.lengthOf(s.events().filter((e) => e.type === "session.killed" && e.sessionId === "app-1"), 1)
        assert.lengthOf(s.events().filter((e) => e.type === "session.exited"), 0, "no false alarm that the agent exited")
        assert.strictEqual((yield* s.orch(["stop"])).code, 0)

        // A start cut short (its process gone half-way), then `orch session kill` of it: undone, and said so.
        assert.strictEqual((yield* s.orch(["spawn", "app", "2"])).code, 0)
        const recordFile = join(s.dataDir, "sessions", "app", "app-2", "session.json")
        writeFileSync(
          recordFile,
          JSON.stringify({ ...s.record("app-2"), status: "spawning", spawn: { pid: 999999999, startedAt: "2026-11-27T12:00:00.000Z" } })
        )
        const killed = yield* s.orch(["session", "kill", "app-2"])
        assert.strictEqual(killed.code, 0, killed.stderr)
        assert.match(
          killed.stdout,
          /^app-2 was a start cut short, so it was undone instead: undid app-2, a spawn of issue 2 interrupted when its process \(999999999\) died/
        )
        assert.isFalse(existsSync(recordFile))
      }),
    90_000
  )

  it.live("orch stop --kill-sessions with no supervisor kills every session here", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      writeFileSync(join(s.dataDir, "worktrees", "app", "app-1", "notes.txt"), "half-done work\n")
      const stopped = yield* s.orch(["stop", "--kill-sessions"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      assert.match(
        stopped.stdout,
        /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 \(commit [0-9a-f]{12}\)\nNo supervisor is running; 1 session\(s\) killed\n$/
      )
      assert.deepStrictEqual(s.sessions(), [])
    }))

  it.live("a kill cut short is finished by the next command: the work saved, the record killed, session.killed once", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "2"])).code, 0)
      writeFileSync(join(s.dataDir, "worktrees", "app", "app-1", "notes.txt"), "half-done work\n")
      const recordFile = (id: string) => join(s.dataDir, "sessions", "app", id, "session.json")
      // app-1: killed -9 after its kill stopped the agent, before the worktree was saved and the record said killed.
      execFileSync("tmux", ["-S", s.socket, "kill-session", "-t", "=app-1"])
      writeFileSync(recordFile("app-1"), JSON.stringify({ ...s.record("app-1"), killing: { pid: 999999999, at: "2026-11-27T12:00:00.000Z" } }))
      // app-2: killed -9 once its record said killed, before session.killed was written.
      execFileSync("tmux", ["-S", s.socket, "kill-session", "-t", "=app-2"])
      const size = readFileSync(join(s.dataDir, "events.jsonl")).length
      writeFileSync(
        recordFile("app-2"),
        JSON.stringify({
          ...s.record("app-2"),
          status: "killed",
          activity: "exited",
          killing: { pid: 999999999, at: "2026-11-27T12:00:00.000Z", announce: size }
        })
      )
      assert.strictEqual((yield* s.orch(["spawn", "app", "3"])).code, 0)
      assert.deepInclude(s.record("app-1"), { status: "killed", rescueRef: "refs/orch/rescue/app-1" })
      assert.strictEqual(git(s.repo.path, "show", "refs/orch/rescue/app-1:notes.txt"), "half-done work")
      assert.isFalse(existsSync(join(s.dataDir, "worktrees", "app", "app-1")))
      for (const id of ["app-1", "app-2"]) {
        assert.isUndefined(s.record(id).killing, id)
        assert.lengthOf(s.events().filter((e) => e.type === "session.killed" && e.sessionId === id), 1, id)
      }
    }))

  it.live("kill stops the agent and removes the worktree; unsaved work goes to the rescue ref first", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      writeFileSync(join(worktree, "notes.txt"), "half-done work\n")
      const run = yield* s.orch(["session", "kill", "app-1"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 \(commit [0-9a-f]{12}\)\n$/)
      assert.deepStrictEqual(s.sessions(), [])
      assert.isFalse(existsSync(worktree))
      assert.strictEqual(git(s.repo.path, "show", "refs/orch/rescue/app-1:notes.txt"), "half-done work")
      assert.isTrue(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/1"), "the branch stays")
      assert.deepInclude(s.record("app-1"), { status: "killed", activity: "exited", rescueRef: "refs/orch/rescue/app-1" })
      assert.deepStrictEqual(s.events().map((e) => e.type), ["session.spawned", "session.rescued", "session.killed"])
    }))

  it.live("a second rescue keeps the first: kill, restore, kill again, and both saved states are reachable", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      writeFileSync(join(worktree, "first.txt"), "first attempt\n")
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      const first = git(s.repo.path, "rev-parse", "refs/orch/rescue/app-1")
      const restored = yield* s.orch(["session", "restore", "app-1"])
      assert.strictEqual(restored.code, 0, restored.stderr)
      writeFileSync(join(worktree, "second.txt"), "second attempt\n")
      const killed = yield* s.orch(["session", "kill", "app-1"])
      assert.match(killed.stdout, /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 \(commit [0-9a-f]{12}\)\n$/)
      const second = git(s.repo.path, "rev-parse", "refs/orch/rescue/app-1")
      assert.notStrictEqual(second, first)
      assert.strictEqual(git(s.repo.path, "show", `${second}:second.txt`), "second attempt")
      assert.isTrue(gitOk(s.repo.path, "merge-base", "--is-ancestor", first, second), "the first rescue is reachable from the ref")
      assert.strictEqual(git(s.repo.path, "show", "refs/orch/rescue/app-1^2:first.txt"), "first attempt")
      assert.strictEqual(s.events().filter((e) => e.type === "session.rescued").length, 2)
    }))

  it.live("kill of a clean session rescues nothing", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).stdout, "killed app-1\n")
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/orch/rescue/app-1"))
    }))

  it.live("restore relaunches a dead session in its worktree", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      yield* eventually("the agent to start", () => s.screen("app-1").includes("ready app-1"))
      const running = yield* s.orch(["session", "restore", "app-1"])
      assert.strictEqual(running.code, 1)
      assert.include(running.stderr, "is running")

      execFileSync("tmux", ["-S", s.socket, "kill-session", "-t", "=app-1"])
      const restored = yield* s.orch(["session", "restore", "app-1"])
      assert.strictEqual(restored.code, 0, restored.stderr)
      yield* eventually("the restored agent", () => s.screen("app-1").includes("ready app-1"))
      assert.strictEqual((yield* s.orch(["send", "app-1", "again"])).code, 0)
      assert.include(s.screen("app-1"), "got: again")
      assert.strictEqual(s.events().at(-2).type, "session.restored")

      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      assert.strictEqual((yield* s.orch(["session", "restore", "app-1"])).code, 0, "a killed session comes back with a new worktree on its branch")
      assert.strictEqual(git(join(s.dataDir, "worktrees", "app", "app-1"), "rev-parse", "--abbrev-ref", "HEAD"), "feat/1")
    }))

  it.live("cleanup removes sessions whose agent is gone, never losing unpushed commits; --dry-run changes nothing", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      for (const issue of ["1", "2"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue])).code, 0)
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      git(worktree, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", "unpushed work")
      const unpushed = git(worktree, "rev-parse", "HEAD")
      execFileSync("tmux", ["-S", s.socket, "kill-session", "-t", "=app-1"])

      const dry = yield* s.orch(["session", "cleanup", "--dry-run"])
      assert.strictEqual(dry.stdout, "would clean app-1 (exited): its terminal session is gone, and no PR was opened\n")
      assert.isTrue(existsSync(worktree))
      assert.strictEqual(s.record("app-1").status, "working")

      const run = yield* s.orch(["session", "cleanup"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(
        run.stdout,
        `cleaned app-1 (exited): its terminal session is gone, and no PR was opened; unsaved work saved to refs/orch/rescue/app-1 (commit ${
          unpushed.slice(0, 12)
        })\n`
      )
      assert.isFalse(existsSync(worktree))
      assert.strictEqual(git(s.repo.path, "rev-parse", "refs/orch/rescue/app-1"), unpushed)
      assert.strictEqual(s.record("app-1").status, "exited", "its agent stopped before its work landed: not done")
      assert.deepInclude(s.events().at(-1), { type: "session.cleaned", sessionId: "app-1", message: "its terminal session is gone, and no PR was opened" })
      assert.strictEqual(s.record("app-2").status, "working")
      assert.deepStrictEqual(s.sessions(), ["app-2"])
      assert.strictEqual((yield* s.orch(["session", "cleanup"])).stdout, "Nothing to clean up.\n")
    }))

  it.live("cleanup removes sessions whose PR merged or closed", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const file = join(s.dataDir, "sessions", "app", "app-1", "session.json")
      writeFileSync(file, JSON.stringify({ ...s.record("app-1"), pr: { number: 8, url: "https://github.com/acme/app/pull/8", state: "merged" } }))
      const run = yield* s.orch(["session", "cleanup"])
      assert.strictEqual(run.stdout, "cleaned app-1 (merged): PR #8 merged\n")
      assert.strictEqual(s.record("app-1").status, "merged")
      assert.deepStrictEqual(s.sessions(), [])
    }))
})

/** Shell for an agent that waits (past spawn's start watch) until the test creates `stop-<session>` beside its worktree. */
const WAIT_FOR_STOP = `echo "ready $ORCH_SESSION_ID"; while [ ! -e "../stop-$ORCH_SESSION_ID" ]; do sleep 0.1; done`

describe("orch session cleanup: each session by what happened to it", () => {
  it.live("merged PR → merged, closed PR → done, agent that exited without a PR → exited (never done)", () =>
    Effect.gen(function*() {
      // app-3's agent starts, then exits with 3 before doing anything, once the test says so
      const s = yield* sandbox({ agentCommand: `[ "$ORCH_SESSION_ID" = app-3 ] && { ${WAIT_FOR_STOP}; exit 3; }; ${ECHO_AGENT}` })
      for (const issue of ["1", "2", "3"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue])).code, 0)
      writeFileSync(join(s.dataDir, "worktrees", "app", "stop-app-3"), "")
      const withPr = (sessionId: string, number: number, state: string) =>
        writeFileSync(
          join(s.dataDir, "sessions", "app", sessionId, "session.json"),
          JSON.stringify({ ...s.record(sessionId), pr: { number, url: `https://github.com/acme/app/pull/${number}`, state } })
        )
      withPr("app-1", 8, "merged")
      withPr("app-2", 9, "closed")
      // tmux 3.3 may have the pane dead but not yet its status (a missed SIGCHLD): orch's probe makes it reap.
      yield* eventually("app-3's agent to exit", () =>
        execFileSync("tmux", ["-S", s.socket, "list-panes", "-t", "=app-3:", "-F", "#{pane_dead}"], { encoding: "utf8" }).trim() === "1", 30_000)
      const before = readFileSync(join(s.dataDir, "events.jsonl"), "utf8").trim().split("\n").length

      const run = yield* s.orch(["session", "cleanup", "--json"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(JSON.parse(run.stdout), [
        { sessionId: "app-1", status: "merged", cause: "pr-merged", reason: "PR #8 merged", rescuedTo: null },
        { sessionId: "app-2", status: "done", cause: "pr-closed", reason: "PR #9 closed without merging", rescuedTo: null },
        { sessionId: "app-3", status: "exited", cause: "agent-exited", reason: "its agent exited (code 3) before opening a PR", rescuedTo: null }
      ])
      assert.deepStrictEqual(["app-1", "app-2", "app-3"].map((id) => [s.record(id).status, s.record(id).activity]), [["merged", "exited"], ["done", "exited"], [
        "exited",
        "exited"
      ]])
      assert.deepStrictEqual(s.events().slice(before).map((e) => [e.type, e.sessionId, e.issueId, e.prNumber ?? null, e.message, e.data]), [
        ["session.cleaned", "app-1", "1", 8, "PR #8 merged", { status: "merged", cause: "pr-merged" }],
        ["session.cleaned", "app-2", "2", 9, "PR #9 closed without merging", { status: "done", cause: "pr-closed" }],
        ["session.cleaned", "app-3", "3", null, "its agent exited (code 3) before opening a PR", { status: "exited", cause: "agent-exited" }]
      ])
      assert.deepStrictEqual(s.sessions(), [])
      const table = (yield* s.orch(["status"])).stdout
      assert.match(table, /^app-3\s+3\s+feat\/3\s+exited\s+exited\s+-\s/m)
      assert.strictEqual((yield* s.orch(["batch-spawn", "app", "3"])).code, 0, "an exited session's issue can be taken up again")
    }), 60_000)
})

describe("orch status", () => {
  it.live("lists every record as a table or as JSON, without touching tmux", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const empty = yield* s.orch(["status"])
      assert.strictEqual(empty.code, 0)
      assert.include(empty.stdout, "No sessions")
      assert.deepStrictEqual(JSON.parse((yield* s.orch(["status", "--json"])).stdout), [])
      for (const issue of ["1", "2"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue])).code, 0)
      const table = (yield* s.orch(["status"])).stdout.trim().split("\n")
      assert.match(table[0]!, /^SESSION\s+ISSUE\s+BRANCH\s+STATUS\s+ACTIVITY\s+PR\s+AGE\s+RECORDED$/)
      assert.match(table[1]!, /^app-1\s+1\s+feat\/1\s+working\s+active\s+-\s+\d+s\s+\d+s ago$/)
      const json = JSON.parse((yield* s.orch(["status", "--json"])).stdout)
      assert.deepStrictEqual(json.map((r: { sessionId: string }) => r.sessionId), ["app-1", "app-2"])
      for (const key of ["sessionId", "projectId", "issueId", "status", "activity", "branch", "workspacePath", "pr", "createdAt"]) {
        assert.property(json[0], key)
      }
      assert.deepInclude(json[0], { recorded: true })
      assert.isAtLeast(json[0].recordedAgeMs, 0)
      // with no tmux or git to be found, status still answers from the records
      const noTools = yield* s.orch(["status", "--json"], { PATH: "/nonexistent" })
      assert.strictEqual(noTools.code, 0, noTools.stderr)
      assert.strictEqual(JSON.parse(noTools.stdout).length, 2)
    }))
})

describe("orch status without a supervisor", () => {
  it.live(
    "says a live session is only as last recorded, and how long ago, but one whose agent died is errored; with a supervisor running neither is recorded",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox({ agentCommand: `[ "$ORCH_SESSION_ID" = app-1 ] && { ${WAIT_FOR_STOP}; exit 0; }; ${ECHO_AGENT}` })
        for (const issue of ["1", "2"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue])).code, 0)
        assert.isNumber(s.record("app-1").runtime.data.pid, "the handle keeps the pid its pane runs")
        writeFileSync(join(s.dataDir, "worktrees", "app", "stop-app-1"), "")
        yield* eventually(
          "app-1's agent to exit",
          () => execFileSync("tmux", ["-S", s.socket, "list-panes", "-t", "=app-1:", "-F", "#{pane_dead}"], { encoding: "utf8" }).trim() === "1",
          30_000
        )
        for (const id of ["app-1", "app-2"]) {
          writeFileSync(
            join(s.dataDir, "sessions", "app", id, "session.json"),
            JSON.stringify({ ...s.record(id), updatedAt: new Date(Date.now() - 3 * 3_600_000).toISOString() })
          )
        }

        const unwatched = yield* s.orch(["status"])
        assert.strictEqual(unwatched.code, 0, unwatched.stderr)
        const lines = unwatched.stdout.trim().split("\n")
        assert.match(lines[0]!, /\sRECORDED$/)
        assert.match(lines[1]!, /^app-1\s+1\s+feat\/1\s+errored\s+exited\s+-\s+\d+s\s+-$/, "the dead agent's session says so, not `working`")
        assert.match(lines[2]!, /^app-2\s+2\s+feat\/2\s+working\s+active\s+-\s+\d+s\s+3h ago$/, "a live one is not shown as live truth")
        assert.strictEqual(
          lines[3],
          "No supervisor is running, so live sessions show what was last recorded (RECORDED), not what they are doing now: " +
            "`orch session ls` checks their terminals, `orch start <project>` keeps them current."
        )
        const [gone, row] = JSON.parse((yield* s.orch(["status", "--json"])).stdout)
        assert.deepInclude(gone, { sessionId: "app-1", status: "errored", activity: "exited", recorded: false })
        assert.deepInclude(row, { sessionId: "app-2", status: "working", recorded: true })
        assert.isAtLeast(row.recordedAgeMs, 3 * 3_600_000)
        assert.isBelow(row.recordedAgeMs, 3 * 3_600_000 + 60_000)
        assert.strictEqual(s.record("app-1").status, "working", "status reads; it writes nothing")
        const probing = (yield* s.orch(["session", "ls"])).stdout
        assert.match(probing, /^app-1\s+1\s+errored\s+exited( \(0\))?\s/m, `session ls, the probing view, tells the truth: ${probing}`)
        assert.match(probing, /^app-2\s+2\s+working\s+alive\s/m, probing)

        assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
        const watched = yield* s.orch(["status"])
        assert.notInclude(watched.stdout, "RECORDED")
        assert.notInclude(watched.stdout, "No supervisor is running")
        const rows = JSON.parse((yield* s.orch(["status", "--json"])).stdout) as Array<{ sessionId: string; recorded: boolean }>
        assert.deepStrictEqual(rows.map((r) => [r.sessionId, r.recorded]), [["app-1", false], ["app-2", false], ["app-orchestrator", false]])
        assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      }),
    60_000
  )
})

/** A sandbox whose `orch spawn app 9` was killed (SIGKILL) during its postCreate: its worktree and branch made, no terminal. */
const spawnKilledInPostCreate = Effect.gen(function*() {
  const s = yield* sandbox({ project: { postCreate: ["touch ../started-$(basename $PWD); sleep 30"] } })
  const child = s.orchAsync(["spawn", "app", "9"])
  yield* eventually("the spawn to reach postCreate", () => existsSync(join(s.dataDir, "worktrees", "app", "started-app-1")), 20_000)
  child.kill("SIGKILL")
  yield* Effect.callback<void>((resume) => {
    child.on("exit", () => resume(Effect.void))
  })
  return s
})

describe("concurrency and crashes", () => {
  it.live("20 orch spawn processes at once make 20 distinct sessions with intact records", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const runs = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => String(i + 1)), (issue) => s.orch(["spawn", "app", issue]), {
        concurrency: "unbounded"
      })
      for (const run of runs) assert.strictEqual(run.code, 0, run.stderr)
      const ids = runs.map((run) => run.stdout.trim())
      assert.strictEqual(new Set(ids).size, 20)
      assert.deepStrictEqual([...ids].sort(), Array.from({ length: 20 }, (_, i) => `app-${i + 1}`).sort())
      const sessionsDir = join(s.dataDir, "sessions", "app")
      for (const id of readdirSync(sessionsDir)) {
        const record = JSON.parse(readFileSync(join(sessionsDir, id, "session.json"), "utf8"))
        assert.strictEqual(record.status, "working")
        assert.strictEqual(git(record.workspacePath, "rev-parse", "--abbrev-ref", "HEAD"), record.branch)
      }
      assert.strictEqual(s.sessions().length, 20)
      assert.strictEqual(s.events().filter((e) => e.type === "session.spawned").length, 20)
    }), 120_000)

  it.live("a spawn killed with SIGKILL half-way leaves nothing orphaned after the next command", () =>
    Effect.gen(function*() {
      const s = yield* spawnKilledInPostCreate
      assert.isTrue(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/9"), "the spawn was half-way")

      s.writeConfig({ postCreate: [] })
      const next = yield* s.orch(["session", "cleanup"])
      assert.strictEqual(next.code, 0, next.stderr)
      assert.isFalse(existsSync(join(s.dataDir, "worktrees", "app", "app-1")))
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/9"))
      assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")))
      assert.deepStrictEqual(s.sessions(), [])
      assert.strictEqual(git(s.repo.path, "worktree", "list").split("\n").length, 1)
      assert.deepInclude(s.events().at(-1), { type: "session.reconciled", sessionId: "app-1", issueId: "9" })

      assert.strictEqual((yield* s.orch(["spawn", "app", "9"])).code, 0, "the issue can be spawned again")
    }), 60_000)

  it.live("the next orch spawn undoes a spawn killed half-way and says so, a line for it", () =>
    Effect.gen(function*() {
      const s = yield* spawnKilledInPostCreate
      s.writeConfig({ postCreate: [] })
      const next = yield* s.orch(["spawn", "app", "10"])
      assert.strictEqual(next.code, 0, next.stderr)
      assert.match(next.stdout, /^app-\d+\n$/)
      assert.match(
        next.stderr,
        /^orch: undid app-1, a spawn of issue 9 interrupted when its process \(\d+\) died: removed its worktree, deleted its branch feat\/9\n/,
        "killed in its postCreate: no terminal was made, and none is said ended"
      )
      assert.strictEqual(next.stderr.split("undid").length, 2, "one line for it")
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/9"))
    }), 60_000)
})

describe("activity from the agent's own signals", () => {
  it.live("orch status shows the newest activity an agent reported through $ORCH_ACTIVITY_FILE", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({
        agentCommand: `while IFS= read -r line; do printf '{"ts":"%s","event":"%s"}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$line" >> "$ORCH_ACTIVITY_FILE"; done`
      })
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const activity = () => Effect.map(s.orch(["status", "--json"]), (run) => JSON.parse(run.stdout)[0].activity)
      assert.strictEqual(yield* activity(), "active")
      assert.strictEqual((yield* s.orch(["send", "app-1", "PermissionRequest"])).code, 0)
      yield* eventually("the signal", () => existsSync(join(s.dataDir, "sessions", "app", "app-1", "activity.jsonl")))
      assert.strictEqual(yield* activity(), "waiting_input")
      assert.strictEqual((yield* s.orch(["send", "app-1", "Stop"])).code, 0)
      yield* eventually("the second signal", () => readFileSync(join(s.dataDir, "sessions", "app", "app-1", "activity.jsonl"), "utf8").includes("Stop"))
      assert.strictEqual(yield* activity(), "ready")
    }))
})

describe("workspace clone", () => {
  it.live("spawns in a fresh clone; kill rescues unsaved work into the project's repository", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { workspace: "clone" } })
      assert.strictEqual((yield* s.orch(["spawn", "app", "1"])).code, 0)
      const path = s.record("app-1").workspacePath
      assert.strictEqual(git(path, "rev-parse", "--abbrev-ref", "HEAD"), "feat/1")
      assert.strictEqual(git(path, "remote", "get-url", "origin"), s.repo.origin)
      assert.isFalse(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/1"), "the project's repository is untouched")
      writeFileSync(join(path, "draft.txt"), "draft\n")
      assert.match(
        (yield* s.orch(["session", "kill", "app-1"])).stdout,
        /^killed app-1; unsaved work saved to refs\/orch\/rescue\/app-1 \(commit [0-9a-f]{12}\)\n$/
      )
      assert.isFalse(existsSync(path))
      assert.strictEqual(git(s.repo.path, "show", "refs/orch/rescue/app-1:draft.txt"), "draft")

      assert.strictEqual((yield* s.orch(["session", "restore", "app-1"])).code, 0)
      writeFileSync(join(path, "draft.txt"), "second draft\n")
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      assert.strictEqual(git(s.repo.path, "show", "refs/orch/rescue/app-1:draft.txt"), "second draft")
      assert.strictEqual(git(s.repo.path, "show", "refs/orch/rescue/app-1^2:draft.txt"), "draft", "the first rescue stays reachable")
    }))
})
