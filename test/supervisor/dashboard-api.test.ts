import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { sandbox } from "../support/orch-sandbox.ts"

describe("dashboard server (served by the supervisor)", () => {
  it.live("needs the token; the printed URL sets a cookie; the API and the event stream answer", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      const token = readFileSync(join(s.dataDir, "token"), "utf8").trim()
      const url = `http://127.0.0.1:${s.port}/?token=${token}`
      assert.include(started.stdout, `dashboard: ${url}`)
      const base = `http://127.0.0.1:${s.port}`
      const get = (path: string, headers: Record<string, string> = {}) => Effect.promise(() => fetch(base + path, { headers, redirect: "manual" }))

      for (const path of ["/", "/api/sessions", "/api/events", "/api/notifications"]) {
        assert.strictEqual((yield* get(path)).status, 401, path)
        assert.strictEqual((yield* get(path, { authorization: "Bearer nope" })).status, 401, path)
      }
      const login = yield* get(`/?token=${token}`)
      assert.strictEqual(login.status, 302)
      const cookie = login.headers.get("set-cookie") ?? ""
      assert.match(cookie, /orch_token=[0-9a-f]+; .*HttpOnly/i)
      const page = yield* get("/", { cookie: cookie.split(";")[0]! })
      assert.strictEqual(page.status, 200)
      assert.include(yield* Effect.promise(() => page.text()), "<title>orch</title>")

      const auth = { authorization: `Bearer ${token}` }
      const stream = yield* get("/api/events", auth)
      assert.strictEqual(stream.headers.get("content-type"), "text/event-stream")
      const reader = stream.body!.getReader()
      assert.strictEqual((yield* s.orch(["spawn", "app", "4"])).code, 0)
      let received = ""
      while (!received.includes("event: session.spawned")) {
        const chunk = yield* Effect.promise(() => reader.read())
        received += new TextDecoder().decode(chunk.value)
      }
      yield* Effect.promise(() => reader.cancel())
      assert.include(received, "\"sessionId\":\"app-1\"")
      const sessions = yield* Effect.promise(async () => (await fetch(`${base}/api/sessions`, { headers: auth })).json() as Promise<Array<{ sessionId: string }>>)
      assert.includeMembers(sessions.map((r) => r.sessionId), ["app-1", "app-orchestrator"])
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)
})
