import { describe, expect, it } from "@effect/vitest"
import { agentMessage } from "../../actors/reaction-effects.ts"
import type { SessionRecord } from "../../src/domain/session.ts"

const record = (overrides: Partial<SessionRecord>) => overrides as SessionRecord

describe("the message a reaction types into the agent", () => {
  it("ci-failed lists each failing check with its link and the end of its log, indented", () => {
    const text = agentMessage(
      "ci-failed",
      "CI is failing.",
      record({
        failingChecks: [
          { name: "test", url: "https://ci/1", summary: "1 test failed", log: "FAIL sum.test.ts\n  expected 3, got -1" },
          { name: "lint" }
        ]
      })
    )
    expect(text).toBe([
      "CI is failing.",
      "",
      "Failing checks:",
      "- test: 1 test failed (https://ci/1)",
      "    FAIL sum.test.ts",
      "      expected 3, got -1",
      "- lint"
    ].join("\n"))
  })

  it("changes-requested lists what reviewers and bots asked, one line each, with file and line", () => {
    const text = agentMessage(
      "changes-requested",
      "Changes were requested.",
      record({
        reviewComments: [
          { author: "ann", body: "Please add tests\nfor negatives." },
          { author: "lint-bot", bot: true, body: "unused import", path: "src/a.ts", line: 2 }
        ]
      })
    )
    expect(text.split("\n").slice(2)).toEqual([
      "Review comments:",
      "- ann: Please add tests for negatives.",
      "- lint-bot (bot) on src/a.ts:2: unused import"
    ])
  })

  it("any other reaction, or nothing to list, is the configured message alone", () => {
    expect(agentMessage("ci-failed", "CI is failing.", record({ failingChecks: [] }))).toBe("CI is failing.")
    expect(agentMessage("agent-stuck", "Are you stuck?", record({}))).toBe("Are you stuck?")
  })
})
