/**
 * The gateway's governor on the Clock: a local host answers 429/403/5xx with the rate-limit headers GitHub sends,
 * and TestClock moves time; requests are held (fail fast, reaching no host) until the time the host named.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { expected } from "../../../src/plugins/answer.ts"
import { makeGateway } from "../../../src/plugins/repohost/gateway.ts"
import { type ScriptedAnswer, scriptedHost } from "../../support/scripted-host.ts"

const anything = expected(Schema.Unknown, "anything")
const outcome = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) =>
  effect.pipe(Effect.as("ok"), Effect.catch((e) => Effect.succeed(e.message)))
const ok: ScriptedAnswer = { body: { ok: true } }

describe("repohost gateway under TestClock", () => {
  it.effect("a 429 with Retry-After holds every request until the time it names, then lets them go", () =>
    Effect.gen(function*() {
      const host = yield* scriptedHost((_, n) => (n === 0 ? { status: 429, headers: { "retry-after": "30" }, body: { message: "slow down" } } : ok))
      const gateway = makeGateway("repohost", host.url, {})
      assert.match(yield* outcome(gateway.get("/a", anything)), /HTTP 429: slow down/)
      assert.match(yield* outcome(gateway.get("/a", anything)), /pause until 1970-01-01T00:00:30\.000Z/)
      yield* TestClock.adjust("29999 millis")
      assert.match(yield* outcome(gateway.graphql("query Q { x }", {}, anything)), /pause until/)
      assert.lengthOf(host.requests, 1, "no request reached the host while it asked for a pause")
      assert.strictEqual(gateway.budget()?.blockedUntil, 30_000)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* outcome(gateway.get("/a", anything)), "ok")
      assert.lengthOf(host.requests, 2)
      assert.isUndefined(gateway.budget(), "the pause is over and no budget was ever given")
    }))

  it.effect("a 403 with the budget spent holds requests until x-ratelimit-reset, and shows the budget meanwhile", () =>
    Effect.gen(function*() {
      const spent = { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "120", "x-ratelimit-resource": "core" }
      const host = yield* scriptedHost((_, n) => (n === 0 ? { status: 403, headers: spent, body: { message: "API rate limit exceeded" } } : ok))
      const gateway = makeGateway("repohost", host.url, {})
      assert.match(yield* outcome(gateway.get("/a", anything)), /HTTP 403: API rate limit exceeded/)
      assert.deepStrictEqual(gateway.budget(), { limit: 5000, remaining: 0, reset: 120, resource: "core", blockedUntil: 120_000 })
      yield* TestClock.adjust("119 seconds")
      assert.match(yield* outcome(gateway.get("/b", anything)), /pause until 1970-01-01T00:02:00\.000Z/)
      assert.lengthOf(host.requests, 1)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* outcome(gateway.get("/b", anything)), "ok")
      assert.lengthOf(host.requests, 2)
    }))

  it.effect("server errors in a row pause the gateway 1 s, then 2 s; a good answer ends the run", () =>
    Effect.gen(function*() {
      const host = yield* scriptedHost((_, n) => (n < 3 ? { status: 502, body: "bad gateway" } : ok))
      const gateway = makeGateway("repohost", host.url, {})
      assert.match(yield* outcome(gateway.get("/a", anything)), /HTTP 502/)
      assert.match(yield* outcome(gateway.get("/a", anything)), /HTTP 502/)
      assert.match(yield* outcome(gateway.get("/a", anything)), /pause until 1970-01-01T00:00:01\.000Z/)
      yield* TestClock.adjust("1 second")
      assert.match(yield* outcome(gateway.get("/a", anything)), /HTTP 502/)
      yield* TestClock.adjust("1999 millis")
      assert.match(yield* outcome(gateway.get("/a", anything)), /pause until 1970-01-01T00:00:03\.000Z/)
      assert.lengthOf(host.requests, 3)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* outcome(gateway.get("/a", anything)), "ok")
      assert.strictEqual(yield* outcome(gateway.get("/b", anything)), "ok")
      assert.lengthOf(host.requests, 5)
    }))
})
