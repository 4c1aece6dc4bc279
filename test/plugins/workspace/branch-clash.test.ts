/**
 * A session's branch that git cannot make beside an existing one (`feat` and `feat/2`: one's name a folder of the
 * other's), on a real repository: the spawn fails as the work's own problem (branchUnusable, so a queue entry is
 * dropped with the reason instead of the machine being blamed), in words that say what to do.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ProjectConfig } from "../../../src/config/schema.ts"
import { makeWorktreeWorkspace } from "../../../src/plugins/workspace/worktree.ts"
import { git, makeRepo } from "../../support/repo.ts"

describe("a branch git cannot make beside another (real git)", () => {
  it.effect.each([
    ["a branch named as its folder exists", "feat", "feat/2"],
    ["a branch inside its name exists (packed)", "feat/6/x", "feat/6"]
  ])("%s", ([_name, existing, wanted]) =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "orch-branch-clash-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const repo = makeRepo(root)
      git(repo.path, "branch", existing)
      if (existing.includes("/x")) git(repo.path, "pack-refs", "--all")
      const project = { id: "app", path: repo.path, defaultBranch: "main", symlinks: [], postCreate: [] } as unknown as ProjectConfig
      const workspace = yield* makeWorktreeWorkspace(join(root, "locks"))
      const path = join(root, "wt", "app-2")
      const error = yield* Effect.flip(workspace.create({ project, sessionId: "app-2", branch: wanted, path }))
      assert.isTrue(error.branchUnusable)
      assert.strictEqual(
        error.reason,
        `branch ${wanted} cannot be made: the branch ${existing} exists, and git cannot keep a branch whose name is a folder of another's; ` +
          `rename or delete ${existing} (\`git branch -m ${existing} <new name>\`) and spawn again`
      )
      assert.isTrue(error.message.startsWith(`worktree: create: branch ${wanted} cannot be made`), error.message)
      assert.isFalse(existsSync(path), "nothing is left where the worktree would have been")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
