import { describe, expect, it } from "@effect/vitest"
import { notReadyReasons, notReadySentence, type Readiness } from "../../../actors/rules/train-readiness.ts"

const pr = { number: 7, url: "http://x/pull/7", state: "open" as const }
const ready: Readiness = { pr, status: "mergeable", checks: "passing", review: "approved", mergeable: true }

describe("why a PR cannot join the merge train", () => {
  it.each<[string, Partial<Readiness>, string]>([
    ["approved and green, its branch conflicting with main", { status: "approved", mergeable: false }, "its branch conflicts with main (rebase it on main)"],
    ["approved, checks failing", { status: "ci_failed", checks: "failing" }, "its checks fail"],
    ["approved, checks running", { status: "approved", checks: "pending" }, "its checks are still running"],
    ["approved, no checks yet", { status: "approved", checks: null }, "no checks have reported on it yet"],
    ["green, not approved", { status: "review_pending", review: "pending" }, "it is not approved"],
    ["changes requested and red", { status: "ci_failed", review: "changes_requested", checks: "failing" }, "changes were requested on it and its checks fail"],
    [
      "not approved, checks running, conflicting",
      { status: "pr_open", review: null, checks: "pending", mergeable: false },
      "it is not approved, its checks are still running and its branch conflicts with main (rebase it on main)"
    ],
    ["a draft", { status: "approved", pr: { ...pr, state: "draft" } }, "it is a draft"],
    ["merged", { status: "merged", pr: { ...pr, state: "merged" } }, "it is merged already"],
    ["no pull request", { status: "working", pr: null }, "it has no pull request"],
    ["approved and green, its agent waiting for input", { status: "needs_input" }, "its session is needs input"]
  ])("%s", (_name, change, said) => {
    const reasons = notReadyReasons({ ...ready, ...change }, "main")
    expect(notReadySentence(reasons)).toBe(said)
    expect(said).not.toMatch(/approved.*not approved|not approved.*approved and green/)
  })

  it("a ready PR has nothing in its way", () => {
    expect(notReadyReasons(ready, "main")).toEqual([])
  })
})
