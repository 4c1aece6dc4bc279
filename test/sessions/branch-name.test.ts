import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { isSafeBranchName, sessionBranch } from "../../src/sessions/branch-name.ts"

const gitAccepts = (name: string) => {
  try {
    execFileSync("git", ["check-ref-format", "--branch", name], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

describe("session branch", () => {
  it.each(
    [
      ["alice/eng-123-fix-the-login-bug", true],
      ["eng-123", true],
      ["feat/ENG-123_v2.1", true],
      ["", false],
      ["-x", false],
      ["a..b", false],
      ["a//b", false],
      ["a/", false],
      [".hidden/x", false],
      ["x/.y", false],
      ["x.lock", false],
      ["ends.", false],
      ["has space", false],
      ["a~1", false],
      ["a^b", false],
      ["a:b", false],
      ["a?b", false],
      ["a[b", false],
      ["a@{b", false],
      ["back\\slash", false],
      ["x".repeat(201), false]
    ] as const
  )("%s → %s", (name, safe) => {
    assert.strictEqual(isSafeBranchName(name), safe)
    if (safe) assert.isTrue(gitAccepts(name), "what orch takes, git takes")
  })

  it("is the tracker's branch name when it is safe, else feat/<issue>", () => {
    assert.strictEqual(sessionBranch("ENG-1", { branchName: "alice/eng-1-x" }), "alice/eng-1-x")
    assert.strictEqual(sessionBranch("ENG-1", { branchName: "bad name" }), "feat/ENG-1")
    assert.strictEqual(sessionBranch("12", {}), "feat/12")
    assert.strictEqual(sessionBranch("12", undefined), "feat/12")
  })
})
