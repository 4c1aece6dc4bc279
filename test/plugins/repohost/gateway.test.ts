import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { startEmulator } from "../../../src/demo/emulator/server.ts"
import { expected } from "../../../src/plugins/answer.ts"
import { graphqlUrl, makeGateway, MAX_CONCURRENT } from "../../../src/plugins/repohost/gateway.ts"
import { makeRepohostScm } from "../../../src/plugins/scm/repohost.ts"
import { makeRepohostTracker } from "../../../src/plugins/tracker/repohost.ts"
import { tempDir } from "../../support/host.ts"
import { makeRepo } from "../../support/repo.ts"

/** An emulator with one open PR on feat/1; every call gets its own token, so its own gateway. */
const emulatorFor = (rateLimit?: number) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const repo = makeRepo(root)
    execFileSync("git", ["-C", repo.path, "push", "-q", "origin", "main:feat/1"])
    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: repo.origin }], ...(rateLimit !== undefined ? { rateLimit } : {}) })),
      (e) => Effect.promise(() => e.close())
    )
    yield* Effect.promise(() =>
      fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: "feat/1", base: "main", title: "t" }) })
    )
    const env = { GITHUB_TOKEN: `token-${Math.random()}` }
    return { emulator, env, scm: makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: emulator.url }, env) }
  })

const anything = expected(Schema.Unknown, "anything")

const reason = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) =>
  effect.pipe(Effect.as("ok"), Effect.catch((e) => Effect.succeed(e.message)))

/** A host that holds each answer until told, counting requests and the most it had at once. */
const slowHost = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ url: string; seen: () => number; most: () => number; release: () => void; close: () => void }>((resolve) => {
      let seen = 0
      let open = 0
      let most = 0
      const waiting: Array<ServerResponse> = []
      const server = createServer((_req: IncomingMessage, res) => {
        seen++
        most = Math.max(most, ++open)
        waiting.push(res)
      })
      server.listen(0, "127.0.0.1", () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          seen: () => seen,
          most: () => most,
          release: () => {
            for (const res of waiting.splice(0)) {
              open--
              res.writeHead(200, { "content-type": "application/json" }).end("{\"ok\":true}")
            }
          },
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        }))
    })
  ),
  (host) => Effect.sync(host.close)
)

describe("repohost gateway", () => {
  it("finds GraphQL where github.com and GitHub Enterprise keep it", () => {
    assert.strictEqual(graphqlUrl("https://api.github.com"), "https://api.github.com/graphql")
    assert.strictEqual(graphqlUrl("https://ghe.example.com/api/v3"), "https://ghe.example.com/api/graphql")
  })

  it.live("one GraphQL query observes many branches; REST GETs ask again with ETags and unchanged answers are free 304s", () =>
    Effect.gen(function*() {
      const { emulator, env, scm } = yield* emulatorFor()
      const issue = emulator.addIssue("acme/app", { title: "One" })
      const views = yield* scm.observeMany!(["feat/1", "feat/none", "feat/1"])
      assert.deepInclude(views.get("feat/1"), { checks: "passing", review: null, mergeable: true })
      assert.strictEqual(views.get("feat/none")?.pr, null)
      assert.strictEqual(emulator.stats.graphqlQueries, 1)
      assert.deepInclude(scm.budget?.(), { limit: 5000 })

      const tracker = makeRepohostTracker("acme/app", { plugin: "repohost", apiUrl: emulator.url }, env)
      const before = emulator.stats.counted
      const first = yield* tracker.getIssue(String(issue))
      const again = yield* tracker.getIssue(String(issue))
      assert.deepStrictEqual(again, first)
      assert.strictEqual(emulator.stats.counted - before, 1, "the second look was a free 304")
      assert.strictEqual(emulator.stats.notModified, 1)
    }))

  it.live("a spent REST budget (403) stops requests until the reset instead of hammering the host", () =>
    Effect.gen(function*() {
      // 1 request made the PR; the budget of 2 runs out at the first issue lookup after that.
      const { emulator, env } = yield* emulatorFor(2)
      const issue = emulator.addIssue("acme/app", { title: "One" })
      const tracker = makeRepohostTracker("acme/app", { plugin: "repohost", apiUrl: emulator.url }, env)
      yield* tracker.getIssue(String(issue))
      const lookup = reason(tracker.getIssue("99"))
      assert.match(yield* lookup, /HTTP 403/)
      const requestsSoFar = emulator.requests.length
      for (let i = 0; i < 3; i++) assert.match(yield* lookup, /the host asked for a pause until /)
      assert.strictEqual(emulator.requests.length, requestsSoFar, "no request while blocked")
    }))

  it.live("spent GraphQL points (RATE_LIMITED) stop the queries until the reset", () =>
    Effect.gen(function*() {
      const { emulator, scm } = yield* emulatorFor(2)
      assert.strictEqual(yield* reason(scm.observe("feat/1")), "ok")
      assert.strictEqual(yield* reason(scm.observe("feat/1")), "ok")
      assert.match(yield* reason(scm.observe("feat/1")), /rate limit exceeded/)
      const requestsSoFar = emulator.requests.length
      assert.match(yield* reason(scm.observe("feat/1")), /pause until/)
      assert.strictEqual(emulator.requests.length, requestsSoFar)
      assert.isAbove(scm.budget?.()?.blockedUntil ?? 0, Date.now())
    }))

  it.live("a 5xx storm is not made worse: after two server errors in a row the gateway backs off", () =>
    Effect.gen(function*() {
      const { emulator, scm } = yield* emulatorFor()
      emulator.failNext(1000, 502)
      const start = emulator.requests.length
      const outcomes = []
      for (let i = 0; i < 10; i++) outcomes.push(yield* reason(scm.observe("feat/1")))
      assert.strictEqual(emulator.requests.length - start, 2, "two tries reached the host, the other eight waited")
      assert.match(outcomes[0]!, /HTTP 502/)
      assert.match(outcomes[9]!, /pause until/)
      emulator.failNext(0, 502)
    }))

  it.live("identical GETs in flight are asked once, and no more than MAX_CONCURRENT requests run at a time", () =>
    Effect.scoped(Effect.gen(function*() {
      const host = yield* slowHost
      const gateway = makeGateway("repohost", host.url, {})
      const same = yield* Effect.forEach(Array.from({ length: 5 }), () => gateway.get("/same", anything), { concurrency: "unbounded" }).pipe(Effect.forkChild)
      const different = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) => gateway.get(`/x/${i}`, anything), { concurrency: "unbounded" })
        .pipe(Effect.forkChild)
      // Let every request that may start, start; release in waves until all are answered.
      while (host.seen() < 21) {
        yield* Effect.sleep("20 millis")
        if (host.most() >= MAX_CONCURRENT) host.release()
      }
      host.release()
      assert.lengthOf(yield* Fiber.join(same), 5)
      assert.lengthOf(yield* Fiber.join(different), 20)
      assert.strictEqual(host.seen(), 21, "5 identical GETs made 1 request")
      assert.strictEqual(host.most(), MAX_CONCURRENT)
    })))
})
