/**
 * Answers GitHub would not give, from a local host: each is a typed error whose one-line message names the field,
 * never a crash or `undefined` further on.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeRepohostScm } from "../../../src/plugins/scm/repohost.ts"
import { makeRepohostTracker } from "../../../src/plugins/tracker/repohost.ts"
import { type ScriptedAnswer, scriptedHost } from "../../support/scripted-host.ts"

const pull = {
  number: 7,
  url: "https://github.com/acme/app/pull/7",
  state: "OPEN",
  isDraft: false,
  mergeable: "MERGEABLE",
  reviewDecision: null,
  commits: { nodes: [{ commit: { statusCheckRollup: null } }] },
  latestOpinionatedReviews: { nodes: [] },
  reviewThreads: { nodes: [] }
}
const pulls = (node: unknown): ScriptedAnswer => ({ body: { data: { repository: { b0: { nodes: [node] } } } } })

/** Each host gets a token of its own, so a gateway of its own. */
const setup = (answer: ScriptedAnswer) =>
  Effect.gen(function*() {
    const host = yield* scriptedHost(() => answer)
    const env = { GITHUB_TOKEN: `token-${host.url}` }
    return {
      scm: makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: host.url }, env),
      tracker: makeRepohostTracker("acme/app", { plugin: "repohost", apiUrl: host.url }, env)
    }
  })

const failure = <A, E extends { readonly _tag: string; readonly message: string }>(effect: Effect.Effect<A, E>) =>
  Effect.flip(effect).pipe(Effect.map((error) => {
    assert.notInclude(error.message, "\n", "one line")
    return `${error._tag}: ${error.message}`
  }))

describe("repohost answers read with Schemas", () => {
  it.effect("a well-formed pull request reads", () =>
    Effect.gen(function*() {
      const { scm } = yield* setup(pulls(pull))
      assert.deepInclude(yield* scm.observe("feat/1"), { pr: { number: 7, url: pull.url, state: "open" }, mergeable: true })
    }))

  it.effect.each<[string, unknown, RegExp]>([
    ["without its number", { ...pull, number: undefined }, /ScmError: .*answered the pull request of feat\/1 without `number`/],
    [
      "with a state GitHub does not have",
      { ...pull, state: "SHELVED" },
      /answered the pull request of feat\/1 with `state`: Expected "OPEN" \| "CLOSED" \| "MERGED", got "SHELVED"/
    ],
    [
      "with a check that is not a check",
      { ...pull, commits: { nodes: [{ commit: { statusCheckRollup: { contexts: { nodes: [{ name: "ci" }] } } } }] } },
      /without `commits\.nodes\.0\.commit\.statusCheckRollup\.contexts\.nodes\.0\.__typename`/
    ],
    [
      "with reviews whose author is a number",
      { ...pull, latestOpinionatedReviews: { nodes: [{ state: "APPROVED", body: "", url: "u", author: 3 }] } },
      /with `latestOpinionatedReviews\.nodes\.0\.author`: Expected .*got 3/
    ]
  ])("a pull request %s is an ScmError naming the field", ([, node, message]) =>
    Effect.gen(function*() {
      const { scm } = yield* setup(pulls(node))
      assert.match(yield* failure(scm.observe("feat/1")), message)
    }))

  it.effect.each<[string, ScriptedAnswer, RegExp]>([
    ["a GraphQL answer whose errors are not a list", { body: { data: null, errors: "boom" } }, /answered a GraphQL query with `errors`: Expected array/],
    ["a repository that is not an object", { body: { data: { repository: [1] } } }, /answered the pull requests of its branches with `repository`/],
    ["a body that is not JSON", { body: "<html>" }, /the answer was not JSON/]
  ])("%s is an ScmError saying so", ([, answer, message]) =>
    Effect.gen(function*() {
      const { scm } = yield* setup(answer)
      assert.match(yield* failure(scm.observe("feat/1")), message)
    }))

  it.effect("an issue without a title is TrackerUnavailable naming `title`", () =>
    Effect.gen(function*() {
      const { tracker } = yield* setup({ body: { number: 7, body: null, html_url: "https://github.com/acme/app/issues/7", labels: [] } })
      assert.match(
        yield* failure(tracker.getIssue("7")),
        /^TrackerUnavailable: repohost http:\/\/127\.0\.0\.1:\d+ unavailable: .*answered issue #7 without `title`$/
      )
    }))

  it.effect("issue states whose state is missing are TrackerUnavailable naming the alias and field", () =>
    Effect.gen(function*() {
      const { tracker } = yield* setup({ body: { data: { repository: { i0: { number: 7, stateReason: null } } } } })
      assert.match(yield* failure(tracker.issueStates!(["7"])), /answered the states of issues without `repository\.i0\.state`/)
    }))
})
