import { describe, expect, it } from "@effect/vitest"
import { ciVerdict, demoSteps, reviewerMove } from "../../src/demo/scenario.ts"

const pull = (overrides: object = {}) => ({ headSha: "b", ci: "success" as const, merged: false, reviews: [], ...overrides })

describe("demo scenario", () => {
  it.each(
    [
      ["straight", pull({ ci: "pending" }), "Wait"],
      ["straight", pull({ ci: "failure" }), "Wait"],
      ["straight", pull(), "Approve"],
      ["straight", pull({ reviews: [{ state: "APPROVED", commit: "b" }] }), "Wait"],
      ["straight", pull({ merged: true }), "Wait"],
      ["review", pull(), "RequestChanges"],
      ["review", pull({ reviews: [{ state: "CHANGES_REQUESTED", commit: "b" }] }), "Wait"],
      ["review", pull({ headSha: "c", reviews: [{ state: "CHANGES_REQUESTED", commit: "b" }] }), "Approve"]
    ] as const
  )("the reviewer, on a %s PR %j, does %s", (story, snapshot, move) => {
    expect(reviewerMove(story, "src/a.js", snapshot)._tag).toBe(move)
  })

  it("CI fails with a lint-style log while TODOs are left", () => {
    expect(ciVerdict([]).conclusion).toBe("success")
    const failed = ciVerdict(["src/sum.js:2:// TODO: check negative numbers"])
    expect(failed).toMatchObject({ conclusion: "failure", title: "1 TODO left" })
    expect(failed.text).toContain("src/sum.js:2:// TODO")
  })

  it("a step is done only when its event happened for its own session, in order", () => {
    const steps = demoSteps({ "ci-fix": "d-1", review: "d-2", straight: "d-3" }, () => 0)
    const fixed = steps.find((s) => s.label.includes("pushed a fix"))!
    expect(fixed.done([{ type: "ci.passed", sessionId: "d-1" }, { type: "ci.failed", sessionId: "d-1" }])).toBe(false)
    expect(fixed.done([{ type: "ci.failed", sessionId: "d-1" }, { type: "ci.passed", sessionId: "d-2" }])).toBe(false)
    expect(fixed.done([{ type: "ci.failed", sessionId: "d-1" }, { type: "ci.passed", sessionId: "d-1" }])).toBe(true)
    const sent = steps.find((s) => s.label.includes("sent the failure"))!
    expect(sent.done([{ type: "reaction.triggered", sessionId: "d-1", reaction: "ci-failed", action: "send-to-agent", data: { failed: "tmux gone" } }])).toBe(
      false
    )
    expect(steps.at(-1)!.done([])).toBe(false)
  })
})
