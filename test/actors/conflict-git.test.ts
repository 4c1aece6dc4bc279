/**
 * Conflict prediction's git reads on real repositories (actors/conflict-git.ts with rules/conflict-pairs.ts): a
 * textual conflict, an overlap that merges cleanly, a clean pair, a conflict with the default branch cleared by a
 * rebase, the cost of a push in git processes, and the look at the ref files that spares a round at rest any process. No worktree is touched: the branches are made in the repository.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readProject, refsStamp } from "../../actors/conflict-git.ts"
import { type ConflictCache, emptyCache, predictionsOf } from "../../actors/rules/conflict-pairs.ts"
import { git, makeRepo } from "../support/repo.ts"

const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`)

/** A repository whose main has `shared.txt` (20 lines), with origin. */
const repository = () =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = mkdtempSync(join(tmpdir(), "orch-conflict-git-"))
      const repo = makeRepo(root)
      writeFileSync(join(repo.path, "shared.txt"), `${LINES.join("\n")}\n`)
      git(repo.path, "add", ".")
      git(repo.path, "commit", "-qm", "shared")
      git(repo.path, "push", "-q", "origin", "main")
      return { root, ...repo }
    }),
    ({ root }) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
  )

/** A commit on `branch` (made from `from`, without checking anything out in the main checkout) setting `files`. */
const commitOn = (repo: string, branch: string, from: string, files: Record<string, string>) => {
  const tree = join(repo, "..", `wt-${branch.replace(/\//g, "-")}`)
  git(repo, "worktree", "add", "-q", "-B", branch, tree, from)
  for (const [file, text] of Object.entries(files)) writeFileSync(join(tree, file), text)
  git(tree, "add", ".")
  git(tree, "commit", "-qm", `${branch}: ${Object.keys(files).join(", ")}`)
  git(repo, "worktree", "remove", "--force", tree)
}

const edited = (line: number, text: string) => `${LINES.map((l, i) => (i === line - 1 ? text : l)).join("\n")}\n`

const project = (path: string) => ({ id: "app", path, defaultBranch: "main" })
const sessions = (...branches: Array<string>) => branches.map((branch, i) => ({ sessionId: `app-${i + 1}`, branch }))

const predict = (path: string, branches: Array<string>, cache: ConflictCache = emptyCache) =>
  Effect.map(readProject(project(path), sessions(...branches), cache), (read) => ({ ...read, predictions: predictionsOf(read.heads, read.cache) }))

const summary = (predictions: ReturnType<typeof predictionsOf>) =>
  predictions.map((p) => `${p.a.sessionId}|${p.b.sessionId ?? p.b.branch} ${p.kind} ${p.files.join(",")}`)

describe("conflict prediction on a real repository", () => {
  it.live("two sessions changing one line differently: a conflict in that file", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      commitOn(path, "feat/1", "main", { "shared.txt": edited(3, "one") })
      commitOn(path, "feat/2", "main", { "shared.txt": edited(3, "two"), "other.txt": "x\n" })
      const { predictions } = yield* predict(path, ["feat/1", "feat/2"])
      assert.deepStrictEqual(summary(predictions), ["app-1|app-2 conflict shared.txt"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("two sessions changing far-apart lines of one file: an overlap, no conflict", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      commitOn(path, "feat/1", "main", { "shared.txt": edited(2, "one") })
      commitOn(path, "feat/2", "main", { "shared.txt": edited(18, "two") })
      const { predictions } = yield* predict(path, ["feat/1", "feat/2"])
      assert.deepStrictEqual(summary(predictions), ["app-1|app-2 overlap shared.txt"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a session that rebased onto the other's branch (as one told of a conflict may): nothing between them", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      commitOn(path, "feat/1", "main", { "shared.txt": edited(3, "one") })
      commitOn(path, "feat/2", "feat/1", { "shared.txt": edited(3, "one, then two") })
      const { predictions } = yield* predict(path, ["feat/1", "feat/2"])
      assert.deepStrictEqual(summary(predictions), [])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("two sessions changing different files: nothing, and no merge run", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      commitOn(path, "feat/1", "main", { "a.txt": "a\n" })
      commitOn(path, "feat/2", "main", { "b.txt": "b\n" })
      const { predictions, gitRuns } = yield* predict(path, ["feat/1", "feat/2"])
      assert.deepStrictEqual(summary(predictions), [])
      assert.strictEqual(gitRuns, 3, "one for-each-ref and a log per session: no merge-tree")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a conflict with the default branch (origin's, not the stale local one) is cleared once the session rebases", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      commitOn(path, "feat/1", "main", { "shared.txt": edited(5, "mine") })
      // Another PR merged on the repohost: origin/main moved, the local main did not.
      commitOn(path, "merged", "main", { "shared.txt": edited(5, "theirs") })
      git(path, "push", "-q", "origin", "merged:main")
      git(path, "fetch", "-q", "origin")
      const first = yield* predict(path, ["feat/1"])
      assert.deepStrictEqual(summary(first.predictions), ["app-1|main conflict shared.txt"])
      // The agent rebases on origin/main and resolves.
      git(path, "branch", "-f", "feat/1", "origin/main")
      commitOn(path, "feat/1", "feat/1", { "shared.txt": edited(5, "mine and theirs") })
      const after = yield* predict(path, ["feat/1"], first.cache)
      assert.deepStrictEqual(summary(after.predictions), [])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a push costs its own reads, not a read of every pair: one log and a merge per session it shares a file with", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      const branches = Array.from({ length: 6 }, (_, i) => `feat/${i + 1}`)
      // feat/1..3 change shared.txt (far apart: overlaps); feat/4..6 a file each.
      branches.forEach((branch, i) => commitOn(path, branch, "main", i < 3 ? { "shared.txt": edited(1 + i * 8, branch) } : { [`own-${i}.txt`]: `${branch}\n` }))
      const first = yield* predict(path, branches)
      assert.strictEqual(first.gitRuns, 1 + 6 + 3, "for-each-ref, a log per session, a merge per overlapping pair")
      assert.strictEqual(first.predictions.length, 3)
      const again = yield* predict(path, branches, first.cache)
      assert.strictEqual(again.gitRuns, 1, "nothing moved: the heads only")
      commitOn(path, "feat/2", "feat/2", { "shared.txt": edited(9, "feat/2 again") })
      const pushed = yield* predict(path, branches, again.cache)
      assert.strictEqual(pushed.gitRuns, 1 + 1 + 2, "for-each-ref, feat/2's log, its merges with feat/1 and feat/3")
      commitOn(path, "feat/5", "feat/5", { "own-4.txt": "more\n" })
      const apart = yield* predict(path, branches, pushed.cache)
      assert.strictEqual(apart.gitRuns, 2, "a push that shares no file: its log only")
      git(path, "branch", "feat/7", "main")
      assert.strictEqual((yield* predict(path, [...branches, "feat/7"], apart.cache)).gitRuns, 1, "a new session with no commit yet: no log")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("the refs' stamp stays while nothing moves, and moves with a commit, the default branch, a packing or a new session", () =>
    Effect.gen(function*() {
      const { path } = yield* repository()
      commitOn(path, "feat/1", "main", { "a.txt": "a\n" })
      const stamp = (...branches: Array<string>) => refsStamp(path, "main", sessions(...branches))
      const atRest = stamp("feat/1")
      assert.isDefined(atRest)
      assert.strictEqual(stamp("feat/1"), atRest)
      commitOn(path, "feat/1", "feat/1", { "a.txt": "b\n" })
      const afterCommit = stamp("feat/1")
      assert.notStrictEqual(afterCommit, atRest)
      git(path, "commit", "-q", "--allow-empty", "-m", "main moves")
      const afterMain = stamp("feat/1")
      assert.notStrictEqual(afterMain, afterCommit)
      git(path, "pack-refs", "--all")
      const packed = stamp("feat/1")
      assert.notStrictEqual(packed, afterMain)
      assert.notStrictEqual(stamp("feat/1", "feat/2"), packed, "a new session")
      assert.isUndefined(refsStamp(join(path, "nowhere"), "main", []), "no .git directory: every round reads")
    }))
})
