import { describe, expect, it } from "@effect/vitest"
import { buildClientSchema, parse, validate } from "graphql"
import { readFileSync } from "node:fs"
import { logExcerpt, type PullNode, pullRequestsQuery, readChecks, readPull, readReview, readReviewComments } from "../../../src/plugins/scm/pull-query.ts"

const github = () => {
  const json = JSON.parse(readFileSync("node_modules/@octokit/graphql-schema/schema.json", "utf8"))
  return buildClientSchema(json.data ?? json)
}

const run = (name: string, status: string, conclusion: string | null, extra: object = {}) => ({
  __typename: "CheckRun" as const,
  name,
  status,
  conclusion,
  permalink: `https://ci/${name}`,
  ...extra
})
const status = (context: string, state: string, extra: object = {}) => ({ __typename: "StatusContext" as const, context, state, ...extra })

const pull = (overrides: Partial<PullNode> = {}): PullNode => ({
  number: 7,
  url: "https://host/acme/app/pull/7",
  state: "OPEN",
  isDraft: false,
  mergeable: "MERGEABLE",
  reviewDecision: null,
  commits: { nodes: [] },
  latestOpinionatedReviews: { nodes: [] },
  reviewThreads: { nodes: [] },
  ...overrides
})
const opinion = (login: string, state: string, body = "", bot = false) => ({
  state,
  body,
  url: `https://r/${login}`,
  author: { __typename: bot ? "Bot" : "User", login }
})
const thread = (path: string, line: number | null, comments: Array<[string, string, boolean?]>, extra: object = {}) => ({
  isResolved: false,
  isOutdated: false,
  path,
  line,
  comments: { nodes: comments.map(([login, body, bot]) => ({ body, url: `https://c/${login}`, author: { __typename: bot ? "Bot" : "User", login } })) },
  ...extra
})

describe("repohost scm: the batched pull-request query", () => {
  it("is a valid document against GitHub's published GraphQL schema, for one branch and for many", () => {
    const schema = github()
    for (const count of [1, 3, 25]) {
      const { query, variables } = pullRequestsQuery(Array.from({ length: count }, (_, i) => `feat/${i}`))
      expect(validate(schema, parse(query)).map((e) => e.message)).toEqual([])
      expect(Object.keys(variables("acme", "app"))).toHaveLength(count + 2)
    }
  })

  it("never splices a branch name into the query text", () => {
    const { query, variables } = pullRequestsQuery(["x\") { evil }"])
    expect(query).not.toContain("evil")
    expect(variables("a", "b")).toEqual({ owner: "a", name: "b", b0: "x\") { evil }" })
  })

  it.each(
    [
      [[], null, []],
      [[run("ci", "COMPLETED", "SUCCESS"), run("lint", "COMPLETED", "NEUTRAL"), status("deploy", "SUCCESS")], "passing", []],
      [[run("ci", "IN_PROGRESS", null), run("lint", "COMPLETED", "SUCCESS")], "pending", []],
      [[run("ci", "COMPLETED", "SUCCESS"), status("deploy", "PENDING")], "pending", []],
      [
        [
          run("ci", "COMPLETED", "FAILURE", { detailsUrl: "https://ci/1", title: "1 test failed", summary: "expected 2", text: "FAIL a\nexpected 2" }),
          run("lint", "QUEUED", null)
        ],
        "failing",
        [{ name: "ci", url: "https://ci/1", summary: "1 test failed: expected 2", log: "FAIL a\nexpected 2" }]
      ],
      [[run("build", "COMPLETED", "TIMED_OUT")], "failing", [{ name: "build", url: "https://ci/build" }]],
      // A check that repeats its title as its summary is said once.
      [[run("ci", "COMPLETED", "FAILURE", { title: "x and y disagree", summary: "x and y disagree" })], "failing", [{
        name: "ci",
        url: "https://ci/ci",
        summary: "x and y disagree"
      }]],
      [[status("jenkins", "ERROR", { targetUrl: "https://j/1", description: "build broke" })], "failing", [{
        name: "jenkins",
        url: "https://j/1",
        summary: "build broke"
      }]]
    ] as const
  )("checks %j → %s", (contexts, checks, failing) => {
    expect(readChecks(contexts as any)).toEqual({ checks, failingChecks: failing })
  })

  it("keeps the end of a long log, where the failure is", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`)
    const excerpt = logExcerpt(lines.join("\n"))!
    expect(excerpt.split("\n")).toEqual(lines.slice(-20))
    expect(logExcerpt("x".repeat(5000))!.length).toBeLessThanOrEqual(1501)
    expect(logExcerpt("  ")).toBeUndefined()
  })

  it.each(
    [
      [null, [], null],
      ["REVIEW_REQUIRED", [], "pending"],
      [null, [opinion("a", "COMMENTED")], "pending"],
      [null, [opinion("a", "APPROVED")], "approved"],
      [null, [opinion("a", "CHANGES_REQUESTED"), opinion("b", "APPROVED")], "changes_requested"],
      ["APPROVED", [opinion("a", "CHANGES_REQUESTED")], "approved"],
      ["CHANGES_REQUESTED", [], "changes_requested"]
    ] as const
  )("review decision %s with %j → %s", (decision, opinions, review) => {
    expect(readReview(pull({ reviewDecision: decision, latestOpinionatedReviews: { nodes: opinions } }))).toBe(review)
  })

  it("lists what is left to address: change requests, then unresolved current threads from people and bots", () => {
    const node = pull({
      latestOpinionatedReviews: { nodes: [opinion("ann", "CHANGES_REQUESTED", "Please add tests"), opinion("bob", "APPROVED", "lgtm")] },
      reviewThreads: {
        nodes: [
          thread("src/a.ts", 3, [["ann", "off by one"], ["dev", "fixing"]]),
          thread("src/b.ts", null, [["lint-bot", "unused import", true]]),
          thread("src/c.ts", 9, [["ann", "done already"]], { isResolved: true }),
          thread("src/d.ts", 1, [["ann", "old code"]], { isOutdated: true })
        ]
      }
    })
    expect(readReviewComments(node)).toEqual([
      { author: "ann", body: "Please add tests", url: "https://r/ann" },
      { author: "ann", body: "off by one", path: "src/a.ts", line: 3, url: "https://c/ann" },
      { author: "dev", body: "fixing", path: "src/a.ts", line: 3, url: "https://c/dev" },
      { author: "lint-bot", bot: true, body: "unused import", path: "src/b.ts", url: "https://c/lint-bot" }
    ])
  })

  it.each([
    [{ state: "OPEN" as const }, "open", true],
    [{ state: "OPEN" as const, isDraft: true, mergeable: "CONFLICTING" as const }, "draft", false],
    [{ state: "MERGED" as const, mergeable: "UNKNOWN" as const }, "merged", null],
    [{ state: "CLOSED" as const }, "closed", true]
  ])("PR %j → %s, mergeable %s", (overrides, state, mergeable) => {
    const view = readPull(pull(overrides))
    expect(view.pr).toEqual({ number: 7, url: "https://host/acme/app/pull/7", state })
    expect(view.mergeable).toBe(mergeable)
  })

  it("no pull request for the branch is a view with nothing in it", () => {
    expect(readPull(undefined)).toEqual({ pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] })
  })
})
