/**
 * Coalesced fetches (src/plugins/workspace/fetch-window.ts): the rule as a table, and the worktree plugin under
 * TestClock against a real repository whose origin moves on: the commit a new worktree starts at is the receipt of
 * whether it fetched.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ProjectConfig } from "../../../src/config/schema.ts"
import { FETCH_WINDOW_MS, fetchServes, lastFetchOf } from "../../../src/plugins/workspace/fetch-window.ts"
import { makeWorktreeWorkspace } from "../../../src/plugins/workspace/worktree.ts"
import { git, makeRepo } from "../../support/repo.ts"

describe("fetch window (pure)", () => {
  it.each(
    [
      ["never fetched", undefined, 1_000, false],
      ["fetched a moment ago", 1_000, 1_500, true],
      ["fetched just inside the window", 1_000, 1_000 + FETCH_WINDOW_MS - 1, true],
      ["fetched a window ago", 1_000, 1_000 + FETCH_WINDOW_MS, false],
      ["a fetch time ahead of the clock", 5_000, 1_000, false]
    ] as const
  )("%s", (_name, fetchedAt, now, serves) => {
    assert.strictEqual(fetchServes(fetchedAt, now), serves)
  })
})

describe("worktree spawns share a recent fetch (real git, TestClock)", () => {
  it.effect("a spawn inside the window starts from what was fetched; one after it fetches again", () =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "orch-fetch-window-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const repo = makeRepo(root)
      const project = { id: "app", path: repo.path, defaultBranch: "main", symlinks: [], postCreate: [] } as unknown as ProjectConfig
      const workspace = yield* makeWorktreeWorkspace(join(root, "locks"))
      git(repo.path, "fetch", "--quiet", "origin", "main")
      const fetchedAt = lastFetchOf(repo.path, "main")
      assert.isDefined(fetchedAt)
      const before = git(repo.path, "rev-parse", "origin/main")
      // Someone pushes to origin after that fetch.
      const other = join(root, "other")
      git(root, "clone", "--quiet", repo.origin, other)
      writeFileSync(join(other, "NEW.md"), "new\n")
      git(other, "add", ".")
      git(other, "-c", "user.email=o@example.com", "-c", "user.name=O", "commit", "-qm", "new")
      git(other, "push", "--quiet", "origin", "main")
      const after = git(other, "rev-parse", "HEAD")

      yield* TestClock.setTime(fetchedAt! + FETCH_WINDOW_MS - 1_000)
      const inside = yield* workspace.create({ project, sessionId: "app-1", branch: "feat/1", path: join(root, "wt", "app-1") })
      assert.strictEqual(git(inside.path, "rev-parse", "HEAD"), before)
      assert.strictEqual(statSync(join(repo.path, ".git", "FETCH_HEAD")).mtimeMs, fetchedAt)

      yield* TestClock.setTime(fetchedAt! + FETCH_WINDOW_MS)
      const outside = yield* workspace.create({ project, sessionId: "app-2", branch: "feat/2", path: join(root, "wt", "app-2") })
      assert.strictEqual(git(outside.path, "rev-parse", "HEAD"), after)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it("a FETCH_HEAD that names another branch does not count as a fetch of the default branch", () => {
    const root = mkdtempSync(join(tmpdir(), "orch-fetch-window-"))
    try {
      const repo = makeRepo(root)
      git(repo.path, "push", "--quiet", "origin", "main:other")
      git(repo.path, "fetch", "--quiet", "origin", "other")
      assert.isUndefined(lastFetchOf(repo.path, "main"))
      git(repo.path, "fetch", "--quiet", "origin", "main")
      assert.isDefined(lastFetchOf(repo.path, "main"))
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
