/**
 * Every request orch makes to the repohost, checked against GitHub's published descriptions: REST requests
 * against the OpenAPI description (@octokit/openapi: the path and method exist, query parameters are declared,
 * body fields are in the schema), GraphQL documents against the GraphQL schema (@octokit/graphql-schema).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { buildClientSchema, parse, validate } from "graphql"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { startEmulator } from "../../../src/demo/emulator/server.ts"
import { makeRepohostScm } from "../../../src/plugins/scm/repohost.ts"
import { makeRepohostTracker } from "../../../src/plugins/tracker/repohost.ts"
import { tempDir } from "../../support/host.ts"
import { makeRepo } from "../../support/repo.ts"

type Json = Record<string, any>
const spec: Json = JSON.parse(readFileSync("node_modules/@octokit/openapi/generated/api.github.com.json", "utf8"))
const resolve = (node: Json): Json => (typeof node?.$ref === "string" ? node.$ref.split("/").slice(1).reduce((at: Json, key: string) => at[key], spec) : node)
const templates = Object.keys(spec.paths)
  .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`), params: (template.match(/\{/g) ?? []).length }))
  .sort((a, b) => a.params - b.params)

/** The problems of one request against the description; empty when it is a valid GitHub request. */
const problems = (method: string, url: string, body: unknown): Array<string> => {
  const { pathname, searchParams } = new URL(url, "http://x")
  const match = templates.find((t) => t.pattern.test(pathname))
  if (match === undefined) return [`${method} ${pathname}: no such path in GitHub's API`]
  const operation: Json | undefined = spec.paths[match.template][method.toLowerCase()]
  if (operation === undefined) return [`${method} ${match.template}: no such operation`]
  const declared = [...(spec.paths[match.template].parameters ?? []), ...(operation.parameters ?? [])].map(resolve)
  const found: Array<string> = []
  for (const key of searchParams.keys()) {
    if (!declared.some((p) => p.in === "query" && p.name === key)) found.push(`${method} ${match.template}: query parameter ${key} is not declared`)
  }
  if (body !== undefined) {
    const schema = resolve(resolve(operation.requestBody ?? {})?.content?.["application/json"]?.schema ?? {})
    for (const key of Object.keys(body as Json)) {
      if (schema.properties?.[key] === undefined) found.push(`${method} ${match.template}: body field ${key} is not in the schema`)
    }
  }
  return found
}

describe("repohost requests are GitHub's", () => {
  it("the checker itself rejects what GitHub would not know", () => {
    assert.deepStrictEqual(problems("GET", "/repos/a/b/pulls?head=a:x&state=all", undefined), [])
    assert.isNotEmpty(problems("GET", "/repos/a/b/pullz", undefined))
    assert.isNotEmpty(problems("GET", "/repos/a/b/pulls?frobnicate=1", undefined))
    assert.isNotEmpty(problems("PUT", "/repos/a/b/pulls/1/merge", { merge_style: "squash" }))
  })

  it.live("issue lookup, PR observation (checks, reviews, comments) and merge", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const repo = makeRepo(root)
      execFileSync("git", ["-C", repo.path, "push", "-q", "origin", "main:feat/1"])
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const issue = emulator.addIssue("acme/app", { title: "One" })
      const created = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: "feat/1", base: "main", title: "t" }) }).then((r) =>
          r.json() as Promise<{ number: number }>
        )
      )
      const ours = emulator.requests.length
      const env = { GITHUB_TOKEN: "t" }
      const tracker = makeRepohostTracker("acme/app", { plugin: "repohost", apiUrl: emulator.url }, env)
      const scm = makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: emulator.url }, env)
      yield* tracker.getIssue(String(issue))
      yield* scm.observe("feat/none")
      yield* scm.observe("feat/1")
      emulator.review("acme/app", created.number, "CHANGES_REQUESTED", "fix", [{ path: "a.ts", line: 1, body: "x" }])
      assert.strictEqual((yield* scm.observe("feat/1")).reviewComments.length, 2)
      emulator.review("acme/app", created.number, "APPROVED")
      yield* scm.merge(created.number, "squash")
      const requests = emulator.requests.slice(ours)
      const graphql = requests.filter((r) => r.url === "/graphql")
      const rest = requests.filter((r) => r.url !== "/graphql")
      assert.lengthOf(graphql, 3)
      assert.lengthOf(rest, 2)
      assert.deepStrictEqual(rest.flatMap((r) => problems(r.method, r.url, r.body)), [])
      const schemaJson = JSON.parse(readFileSync("node_modules/@octokit/graphql-schema/schema.json", "utf8"))
      const schema = buildClientSchema(schemaJson.data ?? schemaJson)
      assert.deepStrictEqual(graphql.flatMap((r) => validate(schema, parse((r.body as { query: string }).query)).map((e) => e.message)), [])
    }))

  it.live("the merge train's: a PR's head, reviews, compare, the checks of a sha, update-branch, a merge with the head pinned", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const repo = makeRepo(root)
      execFileSync("git", ["-C", repo.path, "push", "-q", "origin", "main:feat/1"])
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const created = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: "feat/1", base: "main", title: "t" }) }).then((r) =>
          r.json() as Promise<{ number: number }>
        )
      )
      emulator.review("acme/app", created.number, "APPROVED")
      const ours = emulator.requests.length
      const train = makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: emulator.url }, { GITHUB_TOKEN: "t" }).train!
      const facts = yield* train.look(created.number, "main")
      assert.deepInclude(facts, { state: "open", approved: true, upToDate: true, checks: "passing" })
      assert.deepStrictEqual(yield* train.updateBranch(created.number, facts.head), { _tag: "AlreadyUpToDate" })
      assert.deepStrictEqual(yield* train.mergeAt(created.number, "squash", "0".repeat(40)), {
        _tag: "Refused",
        reason: "repohost: PUT /repos/acme/app/pulls/1/merge failed: HTTP 409: Head branch was modified. Review and try the merge again."
      })
      assert.strictEqual((yield* train.mergeAt(created.number, "squash", facts.head))._tag, "Merged")
      const rest = emulator.requests.slice(ours)
      assert.lengthOf(rest, 8)
      assert.deepStrictEqual(rest.flatMap((r) => problems(r.method, r.url, r.body)), [])
    }))
})
