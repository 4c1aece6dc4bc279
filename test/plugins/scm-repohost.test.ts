import { describe, expect, it } from "@effect/vitest"
import { summarizeChecks, summarizeReviews } from "../../src/plugins/scm/repohost.ts"

const run = (name: string, status: string, conclusion: string | null, extra: object = {}) => ({ name, status, conclusion, ...extra })

describe("repohost scm: reading checks and reviews", () => {
  it.each([
    [[], null, []],
    [[run("ci", "completed", "success"), run("lint", "completed", "neutral")], "passing", []],
    [[run("ci", "in_progress", null), run("lint", "completed", "success")], "pending", []],
    [[run("ci", "completed", "failure", { html_url: "https://ci/1", output: { title: "1 test failed", summary: "expected 2" } }), run("lint", "queued", null)], "failing", [{ name: "ci", url: "https://ci/1", summary: "1 test failed: expected 2" }]],
    [[run("build", "completed", "timed_out")], "failing", [{ name: "build" }]]
  ] as const)("checks %j → %s", (runs, checks, failing) => {
    expect(summarizeChecks(runs)).toEqual({ checks, failingChecks: failing })
  })

  it.each([
    [[], null],
    [[{ user: { login: "a" }, state: "COMMENTED" }], "pending"],
    [[{ user: { login: "a" }, state: "APPROVED" }], "approved"],
    [[{ user: { login: "a" }, state: "CHANGES_REQUESTED" }, { user: { login: "b" }, state: "APPROVED" }], "changes_requested"],
    [[{ user: { login: "a" }, state: "CHANGES_REQUESTED" }, { user: { login: "a" }, state: "APPROVED" }], "approved"],
    [[{ user: { login: "a" }, state: "APPROVED" }, { user: { login: "a" }, state: "DISMISSED" }], "pending"]
  ] as const)("reviews %j → %s", (reviews, review) => {
    expect(summarizeReviews(reviews)).toBe(review)
  })
})
