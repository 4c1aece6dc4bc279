/**
 * Tracker `tracker-b` against a local Linear (test/support/linear-server.ts), which validates every document
 * against Linear's schema and answers with Linear's shapes and errors.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { validateConfig } from "../../../src/config/validate.ts"
import { readAnswer } from "../../../src/plugins/tracker/linear-api.ts"
import { commentFor, makeLinearTracker, trackerBSettings } from "../../../src/plugins/tracker/tracker-b.ts"
import type { SessionUpdate } from "../../../src/plugins/tracker/Tracker.ts"
import { withHost } from "../../support/host.ts"
import { linearServer, type LinearServerOptions } from "../../support/linear-server.ts"
import { freePort } from "../../support/ports.ts"
import { scriptedHost } from "../../support/scripted-host.ts"

const API_KEY = "lin_api_test_secret_0123456789"
const LINEAR: LinearServerOptions = {
  apiKey: API_KEY,
  teams: [{ id: "9cfb482a-81e3-4154-b5b9-2c805e70a02d", key: "ENG" }, { id: "0d8c4fd6-5c1e-4f0b-9d2a-6a7f1b2c3d4e", key: "OPS" }],
  issues: [
    {
      identifier: "ENG-123",
      title: "Fix the login bug",
      description: "Users cannot log in.",
      branchName: "alice/eng-123-fix-the-login-bug",
      labels: ["bug"],
      state: { name: "In Progress", type: "started" }
    },
    { identifier: "ENG-124", title: "Done already", state: { name: "Done", type: "completed" } },
    { identifier: "ENG-125", title: "Not wanted", state: { name: "Canceled", type: "canceled" } },
    { identifier: "OPS-5", title: "Another team's" }
  ]
}

const trackerFor = (tracker: Record<string, unknown>) =>
  validateConfig({ projects: { app: { repo: "acme/app", path: "/work/app", tracker: { plugin: "tracker-b", teamId: "ENG", apiKey: API_KEY, ...tracker } } } })
    .pipe(
      withHost({}),
      Effect.orDie,
      Effect.flatMap((config) => makeLinearTracker(config.projects.app!))
    )

const update = (event: Partial<SessionUpdate["event"]> & Pick<SessionUpdate["event"], "type">, pr: SessionUpdate["pr"] = null): SessionUpdate => ({
  event: { timestamp: "2026-01-01T00:00:00.000Z", sessionId: "app-1", ...event },
  issueId: "ENG-123",
  sessionId: "app-1",
  branch: "alice/eng-123-fix-the-login-bug",
  pr
})

describe("tracker-b (Linear)", () => {
  it.live("looks an issue up by identifier: title, description, labels, URL, branch name, state", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const tracker = yield* trackerFor({ apiUrl: linear.url })
      const issue = yield* tracker.getIssue("ENG-123")
      assert.deepStrictEqual(issue, {
        id: "ENG-123",
        title: "Fix the login bug",
        body: "Users cannot log in.",
        labels: ["bug"],
        url: "https://linear.app/acme/issue/ENG-123",
        branchName: "alice/eng-123-fix-the-login-bug",
        state: { name: "In Progress", completed: false }
      })
      assert.isTrue(tracker.namesBranches)
      const [request] = linear.requests
      assert.strictEqual(request?.status, 200, "the document is valid against Linear's schema")
      assert.strictEqual(request?.headers.authorization, API_KEY, "a personal API key goes without Bearer")
      assert.deepStrictEqual(request?.variables, { id: "ENG-123" })
    }))

  it.live("useBranchName: false leaves the branch to orch", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const tracker = yield* trackerFor({ apiUrl: linear.url, useBranchName: false })
      assert.isUndefined((yield* tracker.getIssue("ENG-123")).branchName)
      assert.isFalse(tracker.namesBranches)
    }))

  it.live("an identifier Linear does not know is not found; one that is no identifier is refused unasked", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const tracker = yield* trackerFor({ apiUrl: linear.url })
      const missing = yield* Effect.flip(tracker.getIssue("ENG-999"))
      assert.strictEqual(missing._tag, "IssueNotFound")
      assert.strictEqual(missing.message, "issue ENG-999 not found in Linear (team ENG)")
      const bad = yield* Effect.flip(tracker.getIssue("42"))
      assert.strictEqual(bad._tag, "InvalidIssueId")
      assert.strictEqual(bad.message, "\"42\" is not an issue id here: expected a Linear issue identifier like ENG-123")
      assert.strictEqual(linear.requests.length, 1)
    }))

  it.live("an issue of another team is refused, whether teamId is the team's key or its id", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      for (const teamId of ["ENG", "eng", LINEAR.teams[0]!.id]) {
        const tracker = yield* trackerFor({ apiUrl: linear.url, teamId })
        const error = yield* Effect.flip(tracker.getIssue("OPS-5"))
        assert.strictEqual(error._tag, "InvalidIssueId")
        assert.strictEqual(error.message, `"OPS-5" is not an issue id here: expected an issue of Linear team ${teamId}, but OPS-5 belongs to team OPS`)
        assert.strictEqual((yield* tracker.getIssue("ENG-123")).id, "ENG-123")
      }
    }))

  it.live("a refused API key is a config error naming the key's place, never its value", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const tracker = yield* trackerFor({ apiUrl: linear.url, apiKey: "lin_api_wrong_key_987" })
      const error = yield* Effect.flip(tracker.getIssue("ENG-123"))
      assert.strictEqual(error._tag, "TrackerAuthFailed")
      assert.strictEqual(error.message, "Linear refused the API key in projects.app.tracker.apiKey: You need to authenticate to access this operation.")
      assert.notInclude(JSON.stringify(error), "lin_api_wrong_key_987")
      assert.strictEqual(linear.requests[0]?.status, 401)
    }))

  it.live("issue states for cleanup: one request for many issues; completed and canceled issues are over", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const tracker = yield* trackerFor({ apiUrl: linear.url })
      const states = yield* tracker.issueStates!(["ENG-123", "ENG-124", "ENG-125", "ENG-777", "OPS-5"])
      assert.deepStrictEqual([...states], [
        ["ENG-123", { name: "In Progress", completed: false }],
        ["ENG-124", { name: "Done", completed: true }],
        ["ENG-125", { name: "Canceled", completed: true }]
      ])
      assert.strictEqual(linear.requests.length, 1)
      assert.strictEqual(linear.requests[0]?.status, 200)
      linear.setState("ENG-123", { name: "Done", type: "completed" })
      assert.isTrue((yield* tracker.issueStates!(["ENG-123"])).get("ENG-123")?.completed)
    }))

  it.live("open issues with every given label, of the team, in one request: what intake queues", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer({
        ...LINEAR,
        issues: [
          ...LINEAR.issues,
          { identifier: "ENG-126", title: "Also a bug, ready", labels: ["bug", "orch"] },
          { identifier: "ENG-127", title: "A bug, done", labels: ["bug", "orch"], state: { name: "Done", type: "completed" } },
          { identifier: "OPS-6", title: "Another team's bug", labels: ["bug", "orch"] }
        ]
      })
      const tracker = yield* trackerFor({ apiUrl: linear.url })
      assert.deepStrictEqual((yield* tracker.openIssues!(["bug"])).map((i) => i.id), ["ENG-123", "ENG-126"])
      const both = yield* tracker.openIssues!(["BUG", "orch"])
      assert.deepStrictEqual(both.map((i) => [i.id, i.title, i.labels]), [["ENG-126", "Also a bug, ready", ["bug", "orch"]]])
      assert.strictEqual(linear.requests.length, 2)
    }))

  it.live("comments on the issue for the event types in commentOn, and only those", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer(LINEAR)
      const tracker = yield* trackerFor({ apiUrl: linear.url, commentOn: ["session.spawned", "pr.created"] })
      yield* tracker.onSessionEvent!(update({ type: "session.spawned" }))
      yield* tracker.onSessionEvent!(update({ type: "pr.created", prNumber: 7 }, { number: 7, url: "https://github.com/acme/app/pull/7", state: "open" }))
      yield* tracker.onSessionEvent!(update({ type: "session.stuck" }))
      assert.deepStrictEqual(linear.comments, [
        { issue: "ENG-123", body: "orch session `app-1` started work on this issue, on branch `alice/eng-123-fix-the-login-bug`." },
        { issue: "ENG-123", body: "orch session `app-1` opened a pull request: https://github.com/acme/app/pull/7" }
      ])
      assert.deepStrictEqual(linear.requests.map((r) => r.status), [200, 200])
      assert.isUndefined((yield* trackerFor({ apiUrl: linear.url })).onSessionEvent, "no commentOn, no comments")
    }))

  it.live("Linear unreachable or rate limited: the tracker is unavailable, with the reason", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const closed = yield* trackerFor({ apiUrl: `http://127.0.0.1:${port}/graphql` })
      const down = yield* Effect.flip(closed.getIssue("ENG-123"))
      assert.strictEqual(down._tag, "TrackerUnavailable")
      assert.strictEqual(down.message, `tracker-b http://127.0.0.1:${port}/graphql unavailable: connect ECONNREFUSED 127.0.0.1:${port}`)

      const linear = yield* linearServer(LINEAR)
      linear.rateLimited = true
      const limited = yield* Effect.flip((yield* trackerFor({ apiUrl: linear.url })).getIssue("ENG-123"))
      assert.strictEqual(limited._tag, "TrackerUnavailable")
      assert.match(limited.message, /unavailable: rate limited until \d{4}-\d\d-\d\dT/)
    }))

  it.live("an answer without the issue's title is TrackerUnavailable naming the field, in one line", () =>
    Effect.gen(function*() {
      const issue = {
        identifier: "ENG-7",
        description: null,
        url: "u",
        branchName: "b",
        state: { name: "Todo", type: "unstarted" },
        team: { id: "t", key: "ENG" },
        labels: { nodes: [] }
      }
      const host = yield* scriptedHost(() => ({ body: { data: { issue } } }))
      const failure = yield* Effect.flip((yield* trackerFor({ apiUrl: host.url })).getIssue("ENG-7"))
      assert.strictEqual(failure._tag, "TrackerUnavailable")
      assert.strictEqual(failure.message, `tracker-b ${host.url} unavailable: Linear answered issue ENG-7 without \`issue.title\``)
    }))

  it("checks its keys when created", () => {
    const problem = (config: Record<string, unknown>) => {
      const result = trackerBSettings({ plugin: "tracker-b", ...config }, "projects.app.tracker")
      return Result.isFailure(result) ? result.failure.message : "ok"
    }
    assert.strictEqual(problem({ teamId: "ENG", apiKey: "k" }), "ok")
    assert.strictEqual(problem({ apiKey: "k" }), "projects.app.tracker.teamId: required: the Linear team's key (e.g. ENG) or id")
    assert.strictEqual(
      problem({ teamId: "ENG", apiKey: "" }),
      "projects.app.tracker.apiKey: required: a Linear API key, from the environment (apiKey: ${LINEAR_API_KEY})"
    )
    assert.strictEqual(problem({ teamId: "ENG", apiKey: "k", teamID: "x" }), "projects.app.tracker.teamID: unknown tracker-b key (did you mean \"teamId\"?)")
    assert.strictEqual(problem({ teamId: "ENG", apiKey: "k", apiUrl: "ftp://x" }), "projects.app.tracker.apiUrl: must be an http or https URL")
    assert.strictEqual(
      problem({ teamId: "ENG", apiKey: "k", commentOn: ["pr.merge"] }),
      "projects.app.tracker.commentOn: unknown event type \"pr.merge\" (did you mean \"pr.merged\"?) (see docs/events.md)"
    )
  })
})

describe("Linear's answers", () => {
  const headers = (values: Record<string, string> = {}) => (name: string) => values[name] ?? null
  const errors = (message: string, extensions: Record<string, unknown>) => JSON.stringify({ errors: [{ message, extensions }], data: null })
  it.each(
    [
      ["data", 200, JSON.stringify({ data: { issue: { identifier: "ENG-1" } } }), { _tag: "Data", data: { issue: { identifier: "ENG-1" } } }],
      [
        "not found under 200",
        200,
        errors("Entity not found: Issue", { type: "invalid input", code: "INPUT_ERROR", userPresentableMessage: "Could not find referenced Issue." }),
        { _tag: "NotFound", message: "Entity not found: Issue" }
      ],
      ["not found under 400", 400, errors("Entity not found: Issue", { type: "invalid input", code: "INPUT_ERROR" }), {
        _tag: "NotFound",
        message: "Entity not found: Issue"
      }],
      [
        "authentication under 400",
        400,
        errors("Authentication required, not authenticated", {
          type: "authentication error",
          code: "AUTHENTICATION_ERROR",
          userPresentableMessage: "You need to authenticate."
        }),
        { _tag: "AuthFailed", message: "You need to authenticate." }
      ],
      ["401 without a body", 401, "Unauthorized", { _tag: "AuthFailed", message: "HTTP 401" }],
      ["forbidden", 200, errors("Forbidden", { type: "forbidden", code: "FORBIDDEN", userPresentableMessage: "You don't have access to this team." }), {
        _tag: "AuthFailed",
        message: "not allowed: You don't have access to this team."
      }],
      ["invalid document", 400, errors("Cannot query field \"nope\" on type \"Issue\".", { code: "GRAPHQL_VALIDATION_FAILED" }), {
        _tag: "Failed",
        reason: "Cannot query field \"nope\" on type \"Issue\"."
      }],
      ["outage", 503, "<html>down</html>", { _tag: "Failed", reason: "HTTP 503" }],
      ["no data", 200, "{}", { _tag: "Failed", reason: "the answer had no data" }],
      ["errors that are not a list", 200, JSON.stringify({ errors: "boom" }), {
        _tag: "Failed",
        reason: "Linear answered a GraphQL request with `errors`: Expected array, got \"boom\""
      }],
      ["an error whose extensions are not an object", 400, JSON.stringify({ errors: [{ message: "x", extensions: 3 }] }), {
        _tag: "Failed",
        reason: "Linear answered a GraphQL request with `errors.0.extensions`: Expected object, got 3"
      }]
    ] as const
  )("%s", (_name, status, body, expected) => {
    assert.deepStrictEqual(readAnswer(status, body, headers()), expected)
  })

  it("rate limited: until the requests budget resets", () => {
    const body = errors("Rate limit exceeded", { type: "ratelimited", code: "RATELIMITED" })
    assert.deepStrictEqual(readAnswer(400, body, headers({ "x-ratelimit-requests-reset": "1767225600000" })), {
      _tag: "Failed",
      reason: "rate limited until 2026-01-01T00:00:00.000Z"
    })
    assert.deepStrictEqual(readAnswer(429, "", headers()), { _tag: "Failed", reason: "rate limited" })
  })
})

describe("comments", () => {
  const pr = { number: 7, url: "https://github.com/acme/app/pull/7", state: "merged" as const }
  it.each([
    [update({ type: "pr.merged", prNumber: 7 }, pr), "The pull request of orch session `app-1` merged: https://github.com/acme/app/pull/7"],
    [update({ type: "pr.created", prNumber: 8 }, pr), "orch session `app-1` opened a pull request: #8"],
    [update({ type: "session.cleaned", message: "issue ENG-123 is Done" }), "orch session `app-1` ended: issue ENG-123 is Done"],
    [update({ type: "session.killed" }), "orch session `app-1` ended."],
    [update({ type: "ci.failed", message: "build" }), "orch session `app-1`: ci.failed (build)"]
  ])("%#", (input, expected) => assert.strictEqual(commentFor(input), expected))
})
