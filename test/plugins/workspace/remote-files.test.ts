/**
 * The files port of a workspace on a host, its scripts run by a real shell (`local` through HostConnections: the
 * same `sh -s` a host runs): the data dir resolved, edits made in at most two round trips, git's exclude kept.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LOCAL } from "../../../src/config/host-spec.ts"
import type { ProjectConfig } from "../../../src/config/schema.ts"
import { HostConnections } from "../../../src/hosts/HostConnections.ts"
import { instructionEdits } from "../../../src/plugins/agent/codex.ts"
import { hookEdits } from "../../../src/plugins/agent/coding-agent.ts"
import { makeRemoteFiles } from "../../../src/plugins/workspace/remote-files.ts"
import { makeRemoteWorkspace } from "../../../src/plugins/workspace/remote-workspace.ts"
import { tempDir } from "../../support/host.ts"
import { makeRepo } from "../../support/repo.ts"
import { countingRoundTrips } from "../../support/round-trips.ts"

describe("files on a host (real shell)", () => {
  it.effect("resolves the data dir once, writes prompt files and Claude Code's and Codex's edits in two round trips, keeps git's exclude", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-remote-files-")
      const repo = makeRepo(join(dir, "r"))
      mkdirSync(join(repo.path, ".claude"))
      writeFileSync(join(repo.path, ".claude", "settings.local.json"), JSON.stringify({ model: "opus" }))
      const { counted, trips } = countingRoundTrips(yield* HostConnections.make({ hosts: [], controlDir: join(dir, "ssh") }))
      const files = makeRemoteFiles(counted, LOCAL, join(dir, "data dir"))
      const data = yield* files.dataDir
      assert.strictEqual(data, realpathSync(join(dir, "data dir")))
      assert.strictEqual(yield* files.dataDir, data)
      assert.strictEqual(trips(), 1, "resolved once")

      const session = join(data, "sessions", "p", "p-1")
      const system = `You are "the" agent.\nx = 1\n\\ and 'quotes' ✓\n`
      const context = { workspacePath: repo.path, activityFile: join(session, "activity.jsonl"), systemPromptFile: join(session, "system-prompt.md") }
      yield* files.apply([
        { _tag: "Write", path: join(session, "prompt.md"), content: "the task\n" },
        { _tag: "Write", path: context.systemPromptFile, content: system },
        ...hookEdits(context),
        ...instructionEdits(context)
      ])
      assert.strictEqual(trips(), 3, "one round trip reads the settings, one writes everything")
      assert.strictEqual(readFileSync(join(session, "prompt.md"), "utf8"), "the task\n")
      assert.strictEqual(readFileSync(context.systemPromptFile, "utf8"), system)
      assert.strictEqual(JSON.parse(readFileSync(join(session, "codex-instructions.toml"), "utf8")), system)
      const settings = JSON.parse(readFileSync(join(repo.path, ".claude", "settings.local.json"), "utf8"))
      assert.strictEqual(settings.model, "opus")
      assert.include(settings.hooks.Stop[0].hooks[0].command, `>> '${context.activityFile}'`)
      assert.strictEqual(execFileSync("git", ["-C", repo.path, "status", "--porcelain"], { encoding: "utf8" }), "")

      // Again (a restore): orch's hooks replaced, not added twice; the exclude line not added twice.
      yield* files.apply(hookEdits(context))
      const again = JSON.parse(readFileSync(join(repo.path, ".claude", "settings.local.json"), "utf8"))
      assert.strictEqual(again.hooks.Stop.length, 1)
      const exclude = readFileSync(join(repo.path, ".git", "info", "exclude"), "utf8")
      assert.strictEqual(exclude.split("\n").filter((line) => line === ".claude/settings.local.json").length, 1)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a settings file that is not JSON fails the edits with a reason, writing nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-remote-files-")
      mkdirSync(join(dir, "w", ".claude"), { recursive: true })
      writeFileSync(join(dir, "w", ".claude", "settings.local.json"), "{ not json")
      const connections = yield* HostConnections.make({ hosts: [], controlDir: join(dir, "ssh") })
      const error = yield* makeRemoteFiles(connections, LOCAL, join(dir, "data")).apply(hookEdits({ workspacePath: join(dir, "w"), activityFile: "/x" })).pipe(
        Effect.flip
      )
      assert.match(error.message, /preparing files/)
      assert.strictEqual(readFileSync(join(dir, "w", ".claude", "settings.local.json"), "utf8"), "{ not json")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
  it.effect("a workspace made on the host names the data dir in the same answer: asking for it then takes no round trip", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-remote-files-")
      const repo = makeRepo(join(dir, "r"))
      const { counted, trips } = countingRoundTrips(yield* HostConnections.make({ hosts: [], controlDir: join(dir, "ssh") }))
      const workspace = makeRemoteWorkspace(counted, LOCAL, join(dir, "data"))
      const project = { id: "app", path: repo.path, defaultBranch: "main", symlinks: [], postCreate: [] } as unknown as ProjectConfig
      const made = yield* workspace.create({ project, sessionId: "app-1", branch: "feat/x", path: "unused" })
      assert.strictEqual(made.path, realpathSync(join(dir, "data", "worktrees", "app", "app-1")))
      const before = trips()
      assert.strictEqual(yield* workspace.files!.dataDir, realpathSync(join(dir, "data")))
      assert.strictEqual(trips(), before)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
