import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionRecord, SessionStatus } from "../../src/domain/session.ts"
import { factsWithoutPlugins, type RemovalFacts, removalVerdict } from "../../src/sessions/removal.ts"
import { eventually } from "../support/eventually.ts"
import { git, gitOk } from "../support/repo.ts"
import { userSandbox } from "../support/user-sandbox.ts"

const record = (status: SessionStatus): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status,
  activity: "exited",
  branch: "feat/1",
  workspacePath: "/w/app-1",
  runtime: null,
  agent: { plugin: "command" },
  pr: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
})
const clean: RemovalFacts = { running: false, worktree: "absent" }

describe("which records rm and prune remove", () => {
  it.each<[SessionStatus, RemovalFacts, string]>([
    ["killed", clean, "Remove"],
    ["done", clean, "Remove"],
    ["merged", clean, "Remove"],
    ["exited", clean, "Remove"],
    ["errored", { running: false, worktree: { uncommitted: 0, unpushed: 0 } }, "Remove"],
    // A live session whose agent is gone (its terminal gone, or its agent exited) has ended: as errored.
    ["working", clean, "Remove"],
    ["pr_open", { running: false, worktree: { uncommitted: 0, unpushed: 0 } }, "Remove"],
    [
      "working",
      { running: false, worktree: { uncommitted: 0, unpushed: 1 } },
      "its worktree /w/app-1 has unsaved work (1 unpushed commit); `orch session kill app-1` saves it to refs/orch/rescue/app-1 and removes the worktree, or commit and push it"
    ],
    ["working", { running: true, worktree: "absent" }, "it is live (working); `orch session kill app-1` ends it first"],
    ["needs_input", { running: undefined, worktree: "absent" }, "it is live (needs_input); `orch session kill app-1` ends it first"],
    ["spawning", clean, "it is being spawned"],
    ["errored", { running: true, worktree: "absent" }, "its agent still runs in its terminal; `orch session kill app-1` stops it first"],
    [
      "errored",
      { running: false, worktree: { uncommitted: 2, unpushed: 0 } },
      "its worktree /w/app-1 has unsaved work (2 uncommitted files); `orch session kill app-1` saves it to refs/orch/rescue/app-1 and removes the worktree, or commit and push it"
    ],
    [
      "done",
      { running: false, worktree: { uncommitted: 1, unpushed: 3 } },
      "its worktree /w/app-1 has unsaved work (1 uncommitted file and 3 unpushed commits); `orch session kill app-1` saves it to refs/orch/rescue/app-1 and removes the worktree, or commit and push it"
    ],
    ["killed", factsWithoutPlugins(record("killed"), false), "Remove"],
    [
      "killed",
      factsWithoutPlugins(record("killed"), true),
      "orch cannot look at its terminal and worktree: its project app is not in /c.yaml; run `orch session rm app-1`, which finds the config it was spawned under"
    ],
    [
      "errored",
      factsWithoutPlugins(record("errored"), false),
      "orch cannot look at its terminal and worktree: its project app is not in /c.yaml; run `orch session rm app-1`, which finds the config it was spawned under"
    ]
  ])("%s with %j: %s", (status, facts, expected) => {
    const verdict = removalVerdict(record(status), facts, "/c.yaml")
    assert.strictEqual(verdict._tag === "Remove" ? "Remove" : verdict.reason, expected)
  })
})

describe("orch session rm / prune (from another directory)", () => {
  it.live("removes ended records and their files, refuses live ones and unsaved work, keeps rescue refs, never reuses an id", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const configFile = s.writeRepoConfig()
      // Run from elsewhere, a command on a session says it uses the config the session was spawned under.
      const under = (id: string) => `orch: using ${configFile}, the config ${id} was spawned under, as no config is found from here\n`
      for (const issue of ["1", "2", "3", "4"]) assert.strictEqual((yield* s.orch(["spawn", "app", issue], { cwd: s.repo.path })).code, 0)
      const sessionDir = (id: string) => join(s.dataDir, "sessions", "app", id)
      const worktree = (id: string) => join(s.dataDir, "worktrees", "app", id)
      // What the supervisor records when an agent exits: status errored, its pane dead.
      const errored = (id: string) => {
        s.tmux("send-keys", "-t", `=${id}:`, "C-d")
        writeFileSync(join(sessionDir(id), "session.json"), JSON.stringify({ ...s.record(id), status: "errored", activity: "exited" }))
      }

      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      const rm = yield* s.orch(["session", "rm", "app-1"])
      assert.deepStrictEqual(rm, { code: 0, stdout: "removed app-1 (killed)\n", stderr: under("app-1") })
      assert.isFalse(existsSync(sessionDir("app-1")))
      assert.deepInclude(s.events().at(-1), {
        type: "session.removed",
        sessionId: "app-1",
        projectId: "app",
        issueId: "1",
        data: { status: "killed", worktreeRemoved: false }
      })
      assert.deepStrictEqual(yield* s.orch(["session", "rm", "app-1"]), { code: 1, stdout: "", stderr: "orch: no session app-1\n" })

      const live = yield* s.orch(["session", "rm", "app-2"])
      assert.deepStrictEqual(live, {
        code: 1,
        stdout: "",
        stderr: `${under("app-2")}orch: session app-2 was not removed: it is live (working); \`orch session kill app-2\` ends it first\n`
      })
      assert.isTrue(existsSync(sessionDir("app-2")))

      errored("app-3")
      writeFileSync(join(worktree("app-3"), "draft.txt"), "half done\n")
      const unsaved = yield* s.orch(["session", "rm", "app-3"])
      assert.strictEqual(unsaved.code, 1)
      assert.strictEqual(
        unsaved.stderr,
        `${under("app-3")}orch: session app-3 was not removed: its worktree ${
          worktree("app-3")
        } has unsaved work (1 uncommitted file); \`orch session kill app-3\` saves it to refs/orch/rescue/app-3 and removes the worktree, or commit and push it\n`
      )
      assert.isTrue(existsSync(join(worktree("app-3"), "draft.txt")))
      assert.strictEqual((yield* s.orch(["session", "kill", "app-3"])).code, 0)
      const rescued = git(s.repo.path, "rev-parse", "refs/orch/rescue/app-3")

      errored("app-4")
      yield* eventually("app-4's agent to exit", () => s.tmux("display-message", "-p", "-t", "=app-4:", "#{pane_dead}").trim() === "1")
      // Where no config is found, an errored session's terminal and worktree are looked at as its record keeps its project.
      const dry = yield* s.orch(["session", "prune", "--dry-run"])
      assert.strictEqual(dry.code, 0, dry.stderr)
      assert.strictEqual(
        dry.stdout,
        "would remove app-3 (killed); the work saved when it ended stays in refs/orch/rescue/app-3\nwould remove app-4 (errored) and its worktree\n"
      )
      const dryInRepo = yield* s.orch(["session", "prune", "--dry-run"], { cwd: s.repo.path })
      assert.strictEqual(
        dryInRepo.stdout,
        "would remove app-3 (killed); the work saved when it ended stays in refs/orch/rescue/app-3\nwould remove app-4 (errored) and its worktree\n"
      )
      assert.isTrue(existsSync(sessionDir("app-3")) && existsSync(worktree("app-4")))

      const pruned = yield* s.orch(["session", "prune"], { cwd: s.repo.path })
      assert.strictEqual(pruned.code, 0, pruned.stderr)
      assert.strictEqual(
        pruned.stdout,
        "removed app-3 (killed); the work saved when it ended stays in refs/orch/rescue/app-3\nremoved app-4 (errored) and its worktree\n"
      )
      for (const id of ["app-3", "app-4"]) assert.isFalse(existsSync(sessionDir(id)))
      assert.isFalse(existsSync(worktree("app-4")))
      assert.deepStrictEqual(s.sessions(), ["app-2"], "app-4's dead terminal went too; the live one stays")
      assert.strictEqual(git(s.repo.path, "rev-parse", "refs/orch/rescue/app-3"), rescued, "rm never touches git refs")
      assert.isTrue(gitOk(s.repo.path, "rev-parse", "--verify", "refs/heads/feat/4"), "nor branches")
      assert.deepStrictEqual(s.events().filter((e) => e.type === "session.removed").map((e) => [e.sessionId, e.message]), [
        ["app-1", "orch session rm removed its record (killed)"],
        ["app-3", "orch session prune removed its record (killed)"],
        ["app-4", "orch session prune removed its record (errored)"]
      ])
      assert.strictEqual((yield* s.orch(["session", "prune"])).stdout, "Nothing to prune: no session has ended.\n")

      const next = yield* s.orch(["spawn", "app", "5"], { cwd: s.repo.path })
      assert.strictEqual(next.stdout, "app-5\n", "a removed session's id is not given again")
      const table = (yield* s.orch(["status"])).stdout
      assert.notMatch(table, /^app-[134]\s/m)
    }), 90_000)

  it.live("through a running supervisor too", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const configFile = s.writeRepoConfig()
      assert.strictEqual((yield* s.orch(["start", "app", "--detach"], { cwd: s.repo.path })).code, 0)
      // Run from elsewhere, each command says it acts under the supervisor's config.
      const served = `orch: using the running supervisor's config ${configFile}, as no config is found from here\n`
      assert.deepStrictEqual(yield* s.orch(["spawn", "app", "1"]), { code: 0, stdout: "app-1\n", stderr: served })
      assert.strictEqual(
        (yield* s.orch(["session", "rm", "app-1"])).stderr,
        `${served}orch: session app-1 was not removed: it is live (working); \`orch session kill app-1\` ends it first\n`
      )
      assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
      // With no git or tmux on its PATH, the command can only succeed by asking the supervisor.
      const pruned = yield* s.orch(["session", "prune"], { env: { PATH: "/nonexistent" } })
      assert.deepStrictEqual(pruned, { code: 0, stdout: "removed app-1 (killed)\n", stderr: served })
      assert.isFalse(existsSync(join(s.dataDir, "sessions", "app", "app-1")))
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)
})
