/** The one rule for issue ids (src/domain/issue-id.ts): what spawn, batch-spawn, queue add and intake accept. */
import { assert, describe, it } from "@effect/vitest"
import { firstInvalidIssueId, isIssueId, normalIssueId } from "../../src/domain/issue-id.ts"

describe("issue ids", () => {
  it.each([
    ["42", true],
    ["#42", true],
    [" 42 ", true],
    ["ENG-123", true],
    ["v1.2_rc", true],
    ["", false],
    [" ", false],
    ["#", false],
    ["a b", false],
    ["x;y", false],
    ["-1", false],
    [".", false],
    ["a..b", false],
    ["5.", false],
    ["x.lock", false],
    ["ünï", false],
    ["1".repeat(100), true],
    ["1".repeat(101), false]
  ])("%j is an issue id: %s", (typed, expected) => assert.strictEqual(isIssueId(typed), expected))

  it("kept trimmed and without its #; a batch is judged by its first refused id", () => {
    assert.strictEqual(normalIssueId(" #42 "), "42")
    assert.strictEqual(firstInvalidIssueId(["1", "a..b", ""]), "a..b")
    assert.strictEqual(firstInvalidIssueId(["1", "2"]), undefined)
  })
})
