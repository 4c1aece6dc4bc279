/**
 * A supervisor whose PR poll fails (its repohost answers 500 to everything), through the built CLI: every failed
 * poll is a supervisor.error event, supervisor.log says so in one line, the poll keeps going (backed off), and
 * `orch status` says the supervisor met errors, with where to read about them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { ECHO_AGENT, sandbox } from "../support/orch-sandbox.ts"

/** A repohost that answers every request with a 500; counts them. */
const failingRepohost = Effect.acquireRelease(
  Effect.callback<{ url: string; requests: () => number; close: () => void }>((resume) => {
    let requests = 0
    const server = createServer((_, response) => {
      requests++
      response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ message: "Server Error" }))
    })
    server.listen(
      0,
      "127.0.0.1",
      () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests, close: () => server.close() }))
    )
  }),
  (server) => Effect.sync(server.close)
)

describe("supervisor loop failures (built CLI)", () => {
  it.live("a PR poll that fails is recorded each time, keeps going, and shows in orch status", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ agentCommand: ECHO_AGENT })
      const repohost = yield* failingRepohost
      s.writeConfig({ scm: { plugin: "repohost", apiUrl: repohost.url } })
      writeFileSync(s.config, `pollIntervalMs: 1000\n${readFileSync(s.config, "utf8")}`)
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      const spawned = yield* s.orch(["spawn", "app", "5"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)

      const pollErrors = () => s.events().filter((e) => e.type === "supervisor.error" && e.data.loop === "PR poll")
      yield* eventually("two failed PR polls", () => pollErrors().length >= 2, 20_000)
      const [first, second] = pollErrors()
      assert.deepStrictEqual([first.data, second.data], [{ loop: "PR poll", attempt: 1 }, { loop: "PR poll", attempt: 2 }])
      assert.match(first.message, /^PR poll failed: app: .*HTTP 500.*; orch tries again in 1 s\.$/)
      assert.match(second.message, /; orch tries again in 2 s\.$/)
      assert.isAtLeast(Date.parse(second.timestamp) - Date.parse(first.timestamp), 1_000, "backed off")
      const asked = repohost.requests()
      yield* eventually("the poll to ask again", () => repohost.requests() > asked, 20_000)
      const log = readFileSync(join(s.dataDir, "supervisor.log"), "utf8")
      assert.match(log, /ERROR the PR poll failed: app: .*HTTP 500.*; orch tries again in 1 s\n/)
      assert.notMatch(log, /^\s+at /m, "an expected failure is one line, with no stack")

      const status = yield* s.orch(["status"])
      assert.strictEqual(status.code, 0, status.stderr)
      assert.match(
        status.stdout,
        /^The supervisor met \d+ errors? in the last 10 minutes \(last: PR poll failed: app: .*HTTP 500.*\): see `grep supervisor\.error ~\/\.orchestrator\/events\.jsonl` and its log at ~\/\.orchestrator\/supervisor\.log\.$/m
      )
      const json = yield* s.orch(["status", "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      assert.deepStrictEqual((JSON.parse(json.stdout) as Array<{ sessionId: string }>).map((r) => r.sessionId).sort(), ["app-1", "app-orchestrator"])
      assert.match(json.stderr, /^orch: warning: The supervisor met \d+ errors? in the last 10 minutes \(last: PR poll failed: /)
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)
})
