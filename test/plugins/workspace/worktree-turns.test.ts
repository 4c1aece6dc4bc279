/**
 * Spawns of one process take turns at a project's repository and hand on at once: under TestClock (the lock file's
 * 20 ms poll never comes round unless the test moves the clock), concurrent creates all finish, in order; a
 * process holding the lock file still keeps them out until it lets go.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ProjectConfig } from "../../../src/config/schema.ts"
import { makeWorktreeWorkspace } from "../../../src/plugins/workspace/worktree.ts"
import { git, makeRepo } from "../../support/repo.ts"

describe("worktree creates of one process (real git, TestClock)", () => {
  it.effect("four at once all finish without the clock moving; another process's lock holds them until released", () =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "orch-worktree-turns-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const repo = makeRepo(root)
      git(repo.path, "fetch", "--quiet", "origin", "main")
      const project = { id: "app", path: repo.path, defaultBranch: "main", symlinks: [], postCreate: [] } as unknown as ProjectConfig
      const locks = join(root, "locks")
      const workspace = yield* makeWorktreeWorkspace(locks)
      const create = (n: number) => workspace.create({ project, sessionId: `app-${n}`, branch: `feat/${n}`, path: join(root, "wt", `app-${n}`) })

      const made = yield* Effect.all([1, 2, 3, 4].map(create), { concurrency: "unbounded" })
      assert.deepStrictEqual(made.map((w) => w.branch), ["feat/1", "feat/2", "feat/3", "feat/4"])

      // Another (live) process holds the repository's lock: a create waits for the poll after it lets go.
      mkdirSync(join(locks, "git-app.lock"))
      writeFileSync(join(locks, "git-app.lock", "owner"), "1")
      const waiting = yield* Effect.forkChild(create(5), { startImmediately: true })
      yield* TestClock.adjust("100 millis")
      assert.isUndefined(waiting.pollUnsafe(), "held off while the other process has the lock")
      rmSync(join(locks, "git-app.lock"), { recursive: true })
      yield* TestClock.adjust("20 millis")
      assert.strictEqual((yield* Fiber.join(waiting)).branch, "feat/5")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
