/**
 * Linear's schema as test/support/linear-schema.ts rebuilds it from @linear/sdk, proven against the SDK's own
 * documents; tracker-b's documents checked against it; and the local Linear refusing what Linear would.
 */
import { assert, describe, it } from "@effect/vitest"
import { LinearDocument } from "@linear/sdk"
import * as Effect from "effect/Effect"
import { parse, validate, validateSchema } from "graphql"
import { COMMENT_MUTATION, ISSUE_QUERY, ISSUE_STATES_QUERY, OPEN_ISSUES_QUERY } from "../../../src/plugins/tracker/linear-api.ts"
import { linearSchema, linearSdkVersion } from "../../support/linear-schema.ts"
import { linearServer } from "../../support/linear-server.ts"

const problems = (document: string) => validate(linearSchema(), parse(document)).map((error) => error.message)

describe("Linear's schema (from @linear/sdk)", () => {
  it("is a valid schema", () => {
    assert.deepStrictEqual(validateSchema(linearSchema()).map((error) => error.message), [])
  })

  it(`accepts every document @linear/sdk ${linearSdkVersion()} sends`, () => {
    const documents = Object.entries(LinearDocument).filter(([name]) => name.endsWith("Document"))
    assert.isAbove(documents.length, 500)
    const rejected = documents.flatMap(([name, document]) => problems(String(document)).map((problem) => `${name}: ${problem}`))
    assert.deepStrictEqual(rejected, [])
  })

  it("rejects what Linear does not have", () => {
    assert.deepStrictEqual(problems(`{ issue(id: "ENG-1") { nope } }`), ["Cannot query field \"nope\" on type \"Issue\"."])
    assert.deepStrictEqual(problems(`{ issue { id } }`), ["Field \"issue\" argument \"id\" of type \"String!\" is required, but it was not provided."])
    assert.deepStrictEqual(problems(`mutation { commentCreate(input: { issueId: "ENG-1", text: "x" }) { success } }`), [
      "Field \"text\" is not defined by type \"CommentCreateInput\"."
    ])
  })

  it("accepts tracker-b's documents", () => {
    for (const document of [ISSUE_QUERY, ISSUE_STATES_QUERY, OPEN_ISSUES_QUERY, COMMENT_MUTATION]) assert.deepStrictEqual(problems(document), [])
  })
})

describe("the local Linear", () => {
  const post = (url: string, body: unknown, apiKey = "key") =>
    Effect.promise(async () => {
      const response = await fetch(url, { method: "POST", headers: { authorization: apiKey, "content-type": "application/json" }, body: JSON.stringify(body) })
      return { status: response.status, body: await response.json() as { errors?: Array<{ message: string; extensions: { code: string } }>; data?: unknown } }
    })

  it.live("refuses invalid documents and ill-typed variables, as Linear does", () =>
    Effect.gen(function*() {
      const linear = yield* linearServer({ apiKey: "key", teams: [{ id: "t1", key: "ENG" }], issues: [{ identifier: "ENG-1", title: "One" }] })
      const invalid = yield* post(linear.url, { query: `{ issue(id: "ENG-1") { nope } }` })
      assert.strictEqual(invalid.status, 400)
      assert.deepStrictEqual(invalid.body.errors?.map((e) => [e.extensions.code, e.message]), [[
        "GRAPHQL_VALIDATION_FAILED",
        "Cannot query field \"nope\" on type \"Issue\"."
      ]])
      const illTyped = yield* post(linear.url, { query: ISSUE_QUERY, variables: { id: 1 } })
      assert.strictEqual(illTyped.status, 400)
      assert.strictEqual(illTyped.body.errors?.[0]?.extensions.code, "BAD_USER_INPUT")
      const ok = yield* post(linear.url, { query: ISSUE_QUERY, variables: { id: "ENG-1" } })
      assert.strictEqual(ok.status, 200)
      assert.deepInclude((ok.body.data as { issue: object }).issue, {
        identifier: "ENG-1",
        title: "One",
        description: null,
        state: { name: "Todo", type: "unstarted" }
      })
      const missing = yield* post(linear.url, { query: ISSUE_QUERY, variables: { id: "ENG-2" } })
      assert.deepStrictEqual([missing.status, missing.body.data, missing.body.errors?.[0]?.message], [200, null, "Entity not found: Issue"])
    }))
})
