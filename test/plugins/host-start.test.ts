/**
 * A session's start on a host in one round trip (src/plugins/host-start.ts), its script run by a real shell with real
 * git and tmux: here the "host" is this machine (`local`, whose scripts run in `sh -s`), its data dir the test's own.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LOCAL } from "../../src/config/host-spec.ts"
import type { ProjectConfig } from "../../src/config/schema.ts"
import { HostConnections } from "../../src/hosts/HostConnections.ts"
import { hookEdits } from "../../src/plugins/agent/coding-agent.ts"
import { type HostStartPlan, makeHostStart } from "../../src/plugins/host-start.ts"
import { tempDir } from "../support/host.ts"
import { git, makeRepo } from "../support/repo.ts"
import { countingRoundTrips } from "../support/round-trips.ts"

const setup = (options: { readonly postCreate?: ReadonlyArray<string> } = {}) =>
  Effect.gen(function*() {
    const dir = yield* tempDir("orch-host-start-")
    const repo = makeRepo(join(dir, "r"))
    const data = join(dir, "data")
    const socket = join(data, "tmux", "default")
    yield* Effect.addFinalizer(() => Effect.sync(() => void execFileSync("sh", ["-c", `tmux -S '${socket}' kill-server 2>/dev/null || true`])))
    const { counted, trips } = countingRoundTrips(yield* HostConnections.make({ hosts: [], controlDir: join(dir, "ssh") }))
    const project = { id: "app", path: repo.path, defaultBranch: "main", symlinks: [], postCreate: options.postCreate ?? [] } as unknown as ProjectConfig
    const plan = (sessionId: string, command: string, more: Partial<HostStartPlan> = {}): HostStartPlan => {
      const path = join(data, "worktrees", "app", sessionId)
      return {
        workspace: { project, sessionId, branch: `feat/${sessionId}`, path },
        origin: repo.origin,
        newBranch: false,
        edits: [
          { _tag: "Write", path: join(data, "sessions", "app", sessionId, "prompt.md"), content: "the task\n" },
          ...hookEdits({ workspacePath: path, activityFile: join(data, "sessions", "app", sessionId, "activity.jsonl") })
        ],
        launch: { sessionId, workingDir: path, command, env: { SECRET: "s3cret" }, unsetEnv: [] },
        watchAfterMs: 150,
        ...more
      }
    }
    const screen = (sessionId: string) => execFileSync("tmux", ["-S", socket, "capture-pane", "-p", "-t", `=${sessionId}:`], { encoding: "utf8" })
    return { dir, repo, data, socket, start: makeHostStart(counted, LOCAL, data), trips, plan, screen }
  })

describe("a session's start on a host (real shell, git and tmux)", () => {
  it.effect("one round trip: the worktree, the agent's files, the terminal session, and the agent watched as it starts", () =>
    Effect.gen(function*() {
      const { data, start, trips, plan, screen } = yield* setup()
      const started = yield* start.start(plan("app-1", `echo "started with $SECRET"; while IFS= read -r l; do echo "got $l"; done`))
      assert.strictEqual(trips(), 1)
      assert.strictEqual(started.path, realpathSync(join(data, "worktrees", "app", "app-1")))
      assert.isTrue(started.createdBranch)
      assert.deepStrictEqual(started.handle, { plugin: "multiplexer", id: "app-1", data: { host: LOCAL, dataDir: data } })
      assert.strictEqual(started.watched?.liveness._tag, "Alive")
      assert.strictEqual(git(started.path, "branch", "--show-current").trim(), "feat/app-1")
      assert.strictEqual(readFileSync(join(data, "sessions", "app", "app-1", "prompt.md"), "utf8"), "the task\n")
      assert.property(JSON.parse(readFileSync(join(started.path, ".claude", "settings.local.json"), "utf8")).hooks, "Stop")
      assert.strictEqual(git(started.path, "status", "--porcelain"), "", "the settings file is excluded from git")
      assert.include(screen("app-1"), "started with s3cret")
      assert.deepStrictEqual(
        execFileSync("ls", [join(data, "tmux")], { encoding: "utf8" }).trim().split("\n"),
        ["default"],
        "the environment file was consumed"
      )
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a settings file the repository keeps is read in the first round trip and kept under orch's hooks in the second", () =>
    Effect.gen(function*() {
      const { repo, start, trips, plan } = yield* setup()
      mkdirSync(join(repo.path, ".claude"))
      writeFileSync(join(repo.path, ".claude", "settings.local.json"), JSON.stringify({ model: "opus" }))
      git(repo.path, "add", ".")
      git(repo.path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "settings")
      git(repo.path, "push", "-q", "origin", "main")
      const started = yield* start.start(plan("app-2", "while IFS= read -r l; do :; done"))
      assert.strictEqual(trips(), 2)
      const settings = JSON.parse(readFileSync(join(started.path, ".claude", "settings.local.json"), "utf8"))
      assert.strictEqual(settings.model, "opus")
      assert.property(settings.hooks, "Stop")
      assert.strictEqual(started.watched?.liveness._tag, "Alive")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a task's new branch that origin has after all is refused before anything is made", () =>
    Effect.gen(function*() {
      const { repo, data, start, plan } = yield* setup()
      git(repo.path, "push", "-q", "origin", "main:feat/app-3")
      const refused = yield* start.start(plan("app-3", "true", { newBranch: true })).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "BranchTaken")
      assert.isFalse(existsSync(join(data, "worktrees", "app", "app-3")))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("an agent that exits at once is seen dead in the same round trip, with what it printed", () =>
    Effect.gen(function*() {
      const { start, trips, plan } = yield* setup()
      const started = yield* start.start(plan("app-4", `echo "unknown flag --frob"; exit 3`))
      assert.strictEqual(trips(), 1)
      assert.deepInclude(started.watched?.liveness, { _tag: "Exited", exitCode: 3 })
      assert.include(started.watched?.screen, "unknown flag --frob")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a failing step is named, with what it made: postCreate (the worktree undone by the script), tmux (the worktree left to undo)", () =>
    Effect.gen(function*() {
      const failing = yield* setup({ postCreate: ["echo cannot install >&2; exit 1"] })
      const workspace = yield* failing.start.start(failing.plan("app-5", "true")).pipe(Effect.flip)
      assert.strictEqual(workspace._tag, "HostStartFailed")
      if (workspace._tag !== "HostStartFailed") return
      assert.strictEqual(workspace.step, "workspace")
      assert.match(workspace.reason, /postCreate `echo cannot install >&2; exit 1` failed/)
      assert.deepStrictEqual(workspace.made, {})
      assert.isFalse(existsSync(join(failing.data, "worktrees", "app", "app-5")))

      const { data, start, plan } = yield* setup()
      mkdirSync(join(data, "tmux"), { recursive: true })
      chmodSync(join(data, "tmux"), 0o755)
      const terminal = yield* start.start(plan("app-6", "true")).pipe(Effect.flip)
      assert.strictEqual(terminal._tag, "HostStartFailed")
      if (terminal._tag !== "HostStartFailed") return
      assert.strictEqual(terminal.step, "terminal")
      assert.match(terminal.reason, /other users have access to it; chmod 700 it/)
      assert.strictEqual(terminal.made.worktree?.path, realpathSync(join(data, "worktrees", "app", "app-6")))
      assert.isUndefined(terminal.made.session)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("git's own reason when the host cannot get the code; a changed origin reaches the host's clone", () =>
    Effect.gen(function*() {
      const { dir, repo, data, start, plan } = yield* setup()
      const missing = yield* start.start(plan("app-7", "true", { origin: join(dir, "gone.git") })).pipe(Effect.flip)
      assert.strictEqual(missing._tag, "HostStartFailed")
      assert.match(
        missing.message,
        /git clone \S+gone\.git failed: fatal: '?\S+gone\.git'? does not appear to be a git repository|fatal: repository '\S+gone\.git' does not exist/
      )

      yield* start.start(plan("app-8", "while IFS= read -r l; do :; done"))
      const moved = join(dir, "moved.git")
      execFileSync("git", ["clone", "-q", "--bare", repo.origin, moved])
      yield* start.start(plan("app-9", "while IFS= read -r l; do :; done", { origin: moved }))
      assert.strictEqual(git(join(data, "repos", "app"), "remote", "get-url", "origin").trim(), moved)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
