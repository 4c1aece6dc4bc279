/**
 * The branch look from ref files (src/plugins/workspace/ref-files.ts) against git's own answer, on real
 * repositories: loose refs, packed refs, a ref being packed, names that collide with a directory, and the cases
 * where the files cannot tell and git is asked instead.
 */
import { afterEach, assert, beforeEach, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { refsFromFiles } from "../../../src/plugins/workspace/ref-files.ts"
import { git, makeRepo } from "../../support/repo.ts"

const ASKED = ["refs/heads/feat/1", "refs/heads/main", "refs/remotes/origin/main", "refs/heads/feat", "refs/heads/nope"]

/** What `git for-each-ref` says of the same refs (it also lists the refs under a pattern: those are not asked). */
const gitSays = (repo: string, refs: ReadonlyArray<string>) =>
  new Set(git(repo, "for-each-ref", "--format=%(refname)", ...refs).split("\n").filter((ref) => refs.includes(ref)))

describe("refsFromFiles (real git)", () => {
  let root: string
  let repo: string
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "orch-ref-files-"))
    repo = makeRepo(root).path
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  const agrees = (refs: ReadonlyArray<string> = ASKED) => {
    const read = refsFromFiles(repo, refs)
    assert.isDefined(read)
    assert.deepStrictEqual([...read!].sort(), [...gitSays(repo, refs)].sort())
  }

  it("loose refs, as git lists them", () => {
    git(repo, "branch", "feat/1")
    agrees()
  })

  it("packed refs, and a loose ref newer than its packed line", () => {
    git(repo, "branch", "feat/1")
    git(repo, "pack-refs", "--all")
    agrees()
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    agrees()
  })

  it("a branch named like the directory of another, either way round", () => {
    git(repo, "branch", "feat/1")
    agrees(["refs/heads/feat", "refs/heads/feat/1/x"])
  })

  it("a deleted branch is gone from both places", () => {
    git(repo, "branch", "feat/1")
    git(repo, "pack-refs", "--all")
    git(repo, "branch", "-D", "feat/1")
    agrees()
  })

  it("cannot tell: a symbolic ref, a damaged ref file, the reftable backend, a .git file", () => {
    mkdirSync(join(repo, ".git", "refs", "heads", "feat"), { recursive: true })
    writeFileSync(join(repo, ".git", "refs", "heads", "feat", "1"), "ref: refs/heads/main\n")
    assert.isUndefined(refsFromFiles(repo, ["refs/heads/feat/1"]))
    writeFileSync(join(repo, ".git", "refs", "heads", "feat", "1"), "garbage\n")
    assert.isUndefined(refsFromFiles(repo, ["refs/heads/feat/1"]))
    rmSync(join(repo, ".git", "refs", "heads", "feat"), { recursive: true })
    writeFileSync(join(repo, ".git", "packed-refs"), "not a packed-refs line\n")
    assert.isUndefined(refsFromFiles(repo, ["refs/heads/feat/1"]))
    rmSync(join(repo, ".git", "packed-refs"))
    mkdirSync(join(repo, ".git", "reftable"))
    assert.isUndefined(refsFromFiles(repo, ["refs/heads/main"]))
    const linked = join(root, "linked")
    git(repo, "worktree", "add", "-q", linked)
    assert.isUndefined(refsFromFiles(linked, ["refs/heads/main"]))
  })
})
