import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { makeRepohostScm } from "../../src/plugins/scm/repohost.ts"
import { tempDir } from "../support/host.ts"
import { makeRepo } from "../support/repo.ts"

const emulatorFor = (rateLimit?: number) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const repo = makeRepo(root)
    execFileSync("git", ["-C", repo.path, "push", "-q", "origin", "main:feat/1"])
    const emulator = yield* Effect.acquireRelease(
      Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: repo.origin }], ...(rateLimit !== undefined ? { rateLimit } : {}) })),
      (e) => Effect.promise(() => e.close())
    )
    yield* Effect.promise(() => fetch(`${emulator.url}/repos/acme/app/pulls`, { method: "POST", body: JSON.stringify({ head: "feat/1", base: "main", title: "t" }) }))
    return { emulator, scm: makeRepohostScm("acme/app", { plugin: "repohost", apiUrl: emulator.url }, {}), root: join(root) }
  })

describe("repohost gateway", () => {
  it.live("asks again with ETags: unchanged answers are free 304s", () =>
    Effect.gen(function*() {
      const { emulator, scm } = yield* emulatorFor()
      const before = emulator.stats.counted
      const first = yield* scm.observe("feat/1")
      assert.deepInclude(first, { checks: "passing", review: null, mergeable: true })
      const counted = emulator.stats.counted - before
      const again = yield* scm.observe("feat/1")
      assert.deepStrictEqual(again, first)
      assert.strictEqual(emulator.stats.counted - before, counted, "nothing changed: no counted request")
      assert.isAtLeast(emulator.stats.notModified, 4)
      assert.deepInclude(scm.budget?.(), { limit: 5000 })
    }))

  it.live("a spent budget (403) stops requests until the reset instead of hammering the host", () =>
    Effect.gen(function*() {
      // 1 request made the PR; the budget of 3 runs out during the first look.
      const { emulator, scm } = yield* emulatorFor(3)
      const observe = scm.observe("feat/1").pipe(Effect.as("ok"), Effect.catch((e) => Effect.succeed(e.reason)))
      assert.match(yield* observe, /^HTTP 403: API rate limit exceeded/)
      const requestsSoFar = emulator.stats.counted + emulator.stats.notModified
      for (let i = 0; i < 3; i++) assert.match(yield* observe, /^rate limited until /)
      assert.strictEqual(emulator.stats.counted + emulator.stats.notModified, requestsSoFar, "no request while blocked")
      assert.isDefined(scm.budget?.()?.blockedUntil)
    }))
})
