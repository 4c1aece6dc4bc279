import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { buildClientSchema, parse, validate } from "graphql"
import { readFileSync } from "node:fs"
import { startEmulator } from "../../../src/demo/emulator/server.ts"
import { issueState, issueStatesQuery, makeRepohostTracker } from "../../../src/plugins/tracker/repohost.ts"
import { tempDir } from "../../support/host.ts"
import { makeRepo } from "../../support/repo.ts"

describe("repohost tracker: issue states for cleanup", () => {
  it("the batched query is valid against GitHub's published GraphQL schema", () => {
    const json = JSON.parse(readFileSync("node_modules/@octokit/graphql-schema/schema.json", "utf8"))
    const { query, variables } = issueStatesQuery([3, 5, 8])
    assert.deepStrictEqual(validate(buildClientSchema(json.data ?? json), parse(query)).map((e) => e.message), [])
    assert.deepStrictEqual<Record<string, unknown>>(variables("acme", "app"), { owner: "acme", name: "app", i0: 3, i1: 5, i2: 8 })
  })

  it.each(
    [
      ["OPEN", null, { name: "open", completed: false }],
      ["open", undefined, { name: "open", completed: false }],
      ["CLOSED", "COMPLETED", { name: "closed (completed)", completed: true }],
      ["closed", "not_planned", { name: "closed (not planned)", completed: true }],
      ["CLOSED", null, { name: "closed", completed: true }]
    ] as const
  )("%s (%s) → %j", (state, reason, expected) => {
    assert.deepStrictEqual(issueState(state, reason), expected)
  })

  it.live("one request tells which issues are over; unknown and malformed ids are left out", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const repo = makeRepo(root)
      const emulator = yield* Effect.acquireRelease(Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: repo.origin }] })), (e) =>
        Effect.promise(e.close))
      const [open, done, dropped] = [1, 2, 3].map((i) =>
        emulator.addIssue("acme/app", { title: `Issue ${i}` })
      )
      emulator.closeIssue("acme/app", done!)
      emulator.closeIssue("acme/app", dropped!, "NOT_PLANNED")
      const tracker = makeRepohostTracker("acme/app", { plugin: "repohost", apiUrl: emulator.url }, { GITHUB_TOKEN: "t-states" })
      const states = yield* tracker.issueStates!([String(open), `#${done}`, String(dropped), "99", "ENG-1"])
      assert.deepStrictEqual(Object.fromEntries(states), {
        [String(open)]: { name: "open", completed: false },
        [String(done)]: { name: "closed (completed)", completed: true },
        [String(dropped)]: { name: "closed (not planned)", completed: true }
      })
      assert.strictEqual(emulator.stats.graphqlQueries, 1)
      assert.deepStrictEqual((yield* tracker.getIssue(String(done))).state, { name: "closed (completed)", completed: true })
    }))
})
