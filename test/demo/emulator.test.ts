import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { buildClientSchema, buildSchema, type GraphQLNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, isUnionType } from "graphql"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { verifySignature } from "../../src/dashboard/webhooks.ts"
import { EMULATOR_SDL } from "../../src/demo/emulator/graphql.ts"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { tempDir } from "../support/host.ts"
import { git, gitAsync, makeRepo } from "../support/repo.ts"
import { webhookReceiver as receiver } from "../support/webhook-receiver.ts"

const githubSchema = () => {
  const json = JSON.parse(readFileSync(join("node_modules", "@octokit", "graphql-schema", "schema.json"), "utf8"))
  return buildClientSchema(json.data ?? json)
}

const fieldsOf = (type: GraphQLNamedType) => isObjectType(type) || isInterfaceType(type) || isInputObjectType(type) ? type.getFields() : {}

describe("repohost emulator", () => {
  it("its GraphQL schema is a faithful subset of GitHub's published one", () => {
    const github = githubSchema()
    const ours = buildSchema(EMULATOR_SDL)
    const problems: Array<string> = []
    for (const [name, type] of Object.entries(ours.getTypeMap())) {
      if (name.startsWith("__") || ["String", "Int", "Boolean", "Float", "ID"].includes(name)) continue
      const theirs = github.getType(name)
      if (theirs === undefined || theirs === null) {
        problems.push(`type ${name} is not GitHub's`)
        continue
      }
      if (isEnumType(type) && isEnumType(theirs)) {
        for (const value of type.getValues()) if (!theirs.getValue(value.name)) problems.push(`${name}.${value.name}`)
      }
      if (isUnionType(type) && isUnionType(theirs)) {
        for (const member of type.getTypes()) if (!theirs.getTypes().some((t) => t.name === member.name)) problems.push(`${name} | ${member.name}`)
      }
      const theirFields = fieldsOf(theirs) as Record<string, { type: unknown; args?: ReadonlyArray<{ name: string; type: unknown }> }>
      for (
        const [fieldName, field] of Object.entries(fieldsOf(type) as Record<string, { type: unknown; args?: ReadonlyArray<{ name: string; type: unknown }> }>)
      ) {
        const their = theirFields[fieldName]
        if (their === undefined) problems.push(`${name}.${fieldName} is not GitHub's`)
        else if (String(their.type) !== String(field.type)) problems.push(`${name}.${fieldName}: ${String(field.type)} vs GitHub's ${String(their.type)}`)
        for (const arg of field.args ?? []) {
          const theirArg = their?.args?.find((a) => a.name === arg.name)
          if (theirArg === undefined || String(theirArg.type) !== String(arg.type)) problems.push(`${name}.${fieldName}(${arg.name})`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  it.live("a push runs CI and delivers signed webhooks; a PR's life shows in REST and GraphQL alike", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("orch-emulator-")
      const { origin, path } = makeRepo(root)
      const hook = yield* receiver
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startEmulator({
            repos: [{ repo: "acme/app", gitDir: origin }],
            ci: ({ message }) => (message.includes("broken") ? { conclusion: "failure", text: "FAIL app.test.ts\nexpected 2, got 3" } : "success"),
            webhooks: [{ url: hook.url, secret: "s3cret" }]
          })
        ),
        (e) => Effect.promise(e.close)
      )
      const issue = emulator.addIssue("acme/app", { title: "Add sums" })
      git(path, "checkout", "-qb", "feat/sum")
      writeFileSync(join(path, "sum.js"), "export const sum = (a, b) => a - b\n")
      git(path, "add", ".")
      git(path, "commit", "-qm", "broken sum")
      yield* gitAsync(path, "push", "-q", "origin", "feat/sum")
      const opened = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls`, {
          method: "POST",
          body: JSON.stringify({ head: "feat/sum", base: "main", title: "Sums", body: `Closes #${issue}` })
        }).then((r) => r.json() as Promise<{ number: number }>)
      )
      const query = `query($b: String!) { rateLimit { remaining cost } repository(owner: "acme", name: "app") {
        pullRequests(headRefName: $b, first: 1, orderBy: {field: CREATED_AT, direction: DESC}) { nodes { number state mergeable
          commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 10) { nodes { __typename ... on CheckRun { name conclusion text } } } } } } }
          reviewThreads(first: 10) { nodes { isResolved path line comments(first: 5) { nodes { author { __typename login } body } } } } } } } }`
      const graph = () =>
        Effect.promise(() =>
          fetch(`${emulator.url}/graphql`, { method: "POST", body: JSON.stringify({ query, variables: { b: "feat/sum" } }) }).then((r) =>
            r.json() as Promise<any>
          )
        )
      const first = (yield* graph()).data.repository.pullRequests.nodes[0]
      expect(first.number).toBe(opened.number)
      expect(first.commits.nodes[0].commit.statusCheckRollup.state).toBe("FAILURE")
      expect(first.commits.nodes[0].commit.statusCheckRollup.contexts.nodes[0]).toEqual({
        __typename: "CheckRun",
        name: "ci",
        conclusion: "FAILURE",
        text: "FAIL app.test.ts\nexpected 2, got 3"
      })

      emulator.review("acme/app", opened.number, "CHANGES_REQUESTED", "Please fix", [{ path: "sum.js", line: 1, body: "should add" }], {
        login: "lint-bot",
        type: "Bot"
      })
      const reviewed = (yield* graph()).data.repository.pullRequests.nodes[0]
      expect(reviewed.reviewThreads.nodes).toEqual([{
        isResolved: false,
        path: "sum.js",
        line: 1,
        comments: { nodes: [{ author: { __typename: "Bot", login: "lint-bot" }, body: "should add" }] }
      }])

      writeFileSync(join(path, "sum.js"), "export const sum = (a, b) => a + b\n")
      git(path, "commit", "-qam", "fix sum")
      yield* gitAsync(path, "push", "-q", "origin", "feat/sum")
      expect((yield* graph()).data.repository.pullRequests.nodes[0].commits.nodes[0].commit.statusCheckRollup.state).toBe("SUCCESS")

      const merged = yield* Effect.promise(() =>
        fetch(`${emulator.url}/repos/acme/app/pulls/${opened.number}/merge`, { method: "PUT", body: "{}" }).then((r) => r.json() as Promise<{ sha: string }>)
      )
      expect(git(path, "ls-remote", "origin", "refs/heads/main").split("\t")[0]).toBe(merged.sha)
      expect(git(origin, "show", `${merged.sha}:sum.js`)).toContain("a + b")
      expect(emulator.issue("acme/app", issue)?.state).toBe("closed")
      expect((yield* graph()).data.repository.pullRequests.nodes[0].state).toBe("MERGED")

      yield* Effect.promise(emulator.settled)
      const events = hook.got.map((d) => `${d.event}:${JSON.parse(d.body).action ?? ""}`)
      expect(events).toEqual(
        expect.arrayContaining([
          "push:",
          "pull_request:opened",
          "check_run:completed",
          "pull_request_review:submitted",
          "pull_request:synchronize",
          "pull_request:closed",
          "issues:closed"
        ])
      )
      expect(hook.got.every((d) => verifySignature("s3cret", d.body, d.signature))).toBe(true)
      expect(new Set(hook.got.map((d) => d.delivery)).size).toBe(hook.got.length)
      const failedRun = hook.got.find((d) => d.event === "check_run" && JSON.parse(d.body).check_run.conclusion === "failure")
      expect(JSON.parse(failedRun!.body).check_run.check_suite.head_branch).toBe("feat/sum")
      expect(emulator.stats.graphqlPoints).toBe(4)
    }).pipe(Effect.scoped))

  it.live("answers GraphQL errors for bad documents, and RATE_LIMITED once the points are spent", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("orch-emulator-")
      const { origin } = makeRepo(root)
      const emulator = yield* Effect.acquireRelease(Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: origin }], rateLimit: 1 })), (e) =>
        Effect.promise(e.close))
      const post = (query: string) =>
        Effect.promise(() =>
          fetch(`${emulator.url}/graphql`, { method: "POST", body: JSON.stringify({ query }) }).then(async (r) => ({
            headers: r.headers,
            body: await r.json() as any
          }))
        )
      const bad = yield* post("{ repository(owner: \"acme\", name: \"app\") { nope } }")
      expect(bad.body.errors[0].message).toContain("nope")
      expect((yield* post("{ rateLimit { remaining } }")).body.data.rateLimit.remaining).toBe(0)
      const spent = yield* post("{ rateLimit { remaining } }")
      expect(spent.body.errors[0].type).toBe("RATE_LIMITED")
      expect(spent.headers.get("x-ratelimit-remaining")).toBe("0")
      expect(spent.headers.get("x-ratelimit-resource")).toBe("graphql")
    }).pipe(Effect.scoped))
})
