/**
 * The dashboard's HTTP side against a real supervisor (`orch start --detach`, tmux, the `command` agent), as a
 * script or the page would use it: the token everywhere, the page and its files, the JSON API with the CLI's
 * Schemas, the live stream, and the actions.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ApiError, Boot, InboxState, Opened } from "../../src/dashboard/api.ts"
import { OrchEvent } from "../../src/domain/event.ts"
import { SessionRecord } from "../../src/domain/session.ts"
import { Killed } from "../../src/ipc/protocol.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { dashboardClient, is, liveStream } from "./client.ts"

const decode = <A, I>(schema: Schema.Codec<A, I>, value: unknown) => Schema.decodeUnknownSync(schema)(value)

describe("dashboard API (a real supervisor)", () => {
  it.live("every page, file, API call and action needs the token; the printed URL leaves it in a cookie", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      const api = dashboardClient(s)
      assert.include(started.stdout, `dashboard: http://127.0.0.1:${s.port}/?token=${api.token}`)
      assert.include(started.stdout, `orchestrator page: http://127.0.0.1:${s.port}/sessions/app-orchestrator?token=${api.token}`)

      const reads = [
        "/",
        "/sessions/app-orchestrator",
        "/assets/app.js",
        "/api/sessions",
        "/api/sessions/app-orchestrator",
        "/api/sessions/app-orchestrator/events",
        "/api/notifications",
        "/api/events"
      ]
      const actions = ["send", "kill", "restore", "merge", "open"].map((a) => `/api/sessions/app-orchestrator/${a}`).concat("/api/notifications/read")
      for (const headers of [{}, { authorization: "Bearer nope" }, { cookie: "orch_token=nope" }]) {
        for (const path of reads) {
          const response = yield* api.request("GET", path, { headers })
          assert.strictEqual(response.status, 401, `GET ${path}`)
          assert.strictEqual(decode(ApiError, response.json).error, "unauthorized")
        }
        for (const path of actions) {
          assert.strictEqual((yield* api.request("POST", path, { headers, body: { message: "x", all: true } })).status, 401, `POST ${path}`)
        }
      }
      assert.strictEqual(
        s.events().filter((e) => e.type === "session.killed").length,
        0,
        "nothing was done"
      )

      // The printed URL: the token goes into an HttpOnly cookie and out of the address.
      const login = yield* api.request("GET", `/sessions/app-orchestrator?token=${api.token}`)
      assert.strictEqual(login.status, 302)
      assert.strictEqual(login.headers.get("location"), "/sessions/app-orchestrator")
      const cookie = login.headers.get("set-cookie") ?? ""
      assert.match(cookie, /^orch_token=[0-9a-f]+;.*HttpOnly/i)
      assert.match(cookie, /SameSite=Strict/i)
      const page = yield* api.request("GET", "/", { headers: { cookie: cookie.split(";")[0]! } })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.headers.get("x-frame-options"), "DENY")
      const csp = page.headers.get("content-security-policy") ?? ""
      assert.include(csp, "default-src 'none'")
      assert.include(csp, `ws://*:${s.terminalPort}`)
      assert.notMatch(csp, /script-src[^;]*unsafe-inline/)
      const boot = decode(Boot, JSON.parse(/<script id="orch-boot" type="application\/json">(.*?)<\/script>/.exec(page.text)![1]!))
      assert.notInclude(csp, `:${s.directTerminalPort}`, "the page connects to one terminal port")
      assert.deepStrictEqual({ terminal: boot.terminalPort, projects: boot.projects }, {
        terminal: s.terminalPort,
        projects: [{ id: "app", name: "app", repo: "acme/app" }]
      })
      assert.isUndefined(boot.hosts, "no other machine configured: no host filter")

      const script = yield* api.get("/assets/app.js")
      assert.strictEqual(script.status, 200)
      assert.match(script.headers.get("content-type")!, /^text\/javascript/)
      const etag = script.headers.get("etag")!
      assert.strictEqual((yield* api.request("GET", "/assets/app.js", { headers: { ...api.auth, "if-none-match": etag } })).status, 304)
      assert.include((yield* api.get("/assets/app.css")).text, ".xterm", "xterm's stylesheet is bundled in")
      for (const path of ["/assets/../token", "/assets/%2e%2e/token", "/assets/nope.js"]) assert.strictEqual((yield* api.get(path)).status, 404, path)

      // The JSON API speaks the CLI's Schemas: the same records as `orch status --json`.
      const sessions = decode(Schema.Array(SessionRecord), (yield* api.get("/api/sessions")).json)
      const status = decode(Schema.Array(SessionRecord), JSON.parse((yield* s.orch(["status", "--json"])).stdout))
      assert.deepStrictEqual(sessions.map((r) => r.sessionId).sort(), status.map((r) => r.sessionId).sort())
      assert.strictEqual(decode(SessionRecord, (yield* api.get("/api/sessions/app-orchestrator")).json).role, "orchestrator")
      const missing = yield* api.get("/api/sessions/nope")
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(decode(ApiError, missing.json), { error: "session_not_found", message: "no session nope" })
      // A path the API does not have fails in the same shape (after the token), not with an empty 404.
      const unknown = yield* api.get("/api/nope")
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(decode(ApiError, unknown.json), {
        error: "not_found",
        message: "there is no GET /api/nope in the API; docs/dashboard.md lists its calls"
      })
      assert.strictEqual((yield* api.request("GET", "/api/nope")).status, 401, "the token first")
      assert.deepStrictEqual(decode(InboxState, (yield* api.get("/api/notifications")).json), { unread: 0, entries: [] })
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 60_000)

  it.live("the live stream and the actions: send, merge refused, open, kill, restore; the inbox counts and clears", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      // A desktop opener that writes down what it was asked to open.
      const bin = join(s.root, "bin")
      const opened = join(s.root, "opened.txt")
      mkdirSync(bin)
      for (const name of ["xdg-open", "open"]) {
        writeFileSync(join(bin, name), `#!/bin/sh\necho "$1" >> ${opened}\n`)
        chmodSync(join(bin, name), 0o755)
      }
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"], { PATH: `${bin}:${process.env.PATH}` })).code, 0)
      const api = dashboardClient(s)
      const live = yield* liveStream(api.base, api.token)
      assert.strictEqual(live.response.headers.get("content-type"), "text/event-stream")
      const first = yield* live.next("the snapshot", is("snapshot"))
      assert.deepStrictEqual(first.sessions.map((r) => r.sessionId), ["app-orchestrator"])

      assert.strictEqual((yield* s.orch(["spawn", "app", "7"])).code, 0)
      yield* live.next("app-1's record", is("session", (m) => m.sessionId === "app-1" && m.record?.status === "working"))
      yield* live.next("session.spawned", is("event", (m) => m.event.type === "session.spawned" && m.event.sessionId === "app-1"))
      yield* eventually("the agent to start", () => s.screen("app-1").includes("ready app-1"))

      const sent = yield* api.post("/api/sessions/app-1/send", { message: "hello from the dashboard" })
      assert.strictEqual(sent.status, 200, sent.text)
      assert.deepStrictEqual(sent.json, { sent: true })
      yield* eventually("the message in the agent's terminal", () => s.screen("app-1").includes("got: hello from the dashboard"))
      yield* live.next("session.message_sent", is("event", (m) => m.event.type === "session.message_sent"))
      const empty = yield* api.post("/api/sessions/app-1/send", { message: "" })
      assert.strictEqual(empty.status, 400)
      assert.strictEqual(decode(ApiError, empty.json).error, "bad_request")
      assert.strictEqual((yield* api.post("/api/sessions/app-1/send", "not json")).status, 400)
      const foreign = yield* api.post("/api/sessions/app-1/send", { message: "x" }, { origin: "http://evil.example" })
      assert.strictEqual(foreign.status, 403, "a page from another origin may not act, even with the cookie")
      assert.strictEqual((yield* api.post("/api/sessions/app-1/send", { message: "x" }, { origin: `http://127.0.0.1:${s.port}` })).status, 200)

      const merge = yield* api.post("/api/sessions/app-1/merge")
      assert.strictEqual(merge.status, 409)
      assert.deepStrictEqual(decode(ApiError, merge.json), { error: "merge_refused", message: "app-1: not merged: it has no pull request orch can merge" })

      const open = yield* api.post("/api/sessions/app-1/open")
      assert.strictEqual(open.status, 200, open.text)
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      assert.deepStrictEqual(decode(Opened, open.json), { opened: worktree })
      yield* eventually("the opener to run", () => existsSync(opened) && readFileSync(opened, "utf8") === `${worktree}\n`)

      // The hosted inbox, written by another process (`orch notify`), reaches the page through the supervisor.
      // (to `hosted` only: the default routing also names `desktop`, which fails on a machine without notify-send)
      const notified = yield* s.orch(["notify", "--priority", "urgent", "--notifier", "hosted", "disk", "almost", "full"])
      assert.strictEqual(notified.code, 0, notified.stderr)
      const arrived = yield* live.next("the notification", is("inbox", (m) => m.unread === 1))
      assert.strictEqual(arrived.entries[0]!.message, "disk almost full")
      const cleared = yield* api.post("/api/notifications/read", { all: true })
      assert.strictEqual(decode(InboxState, cleared.json).unread, 0)
      yield* live.next("the inbox read", is("inbox", (m) => m.unread === 0 && m.entries.every((e) => e.read)))

      const killed = yield* api.post("/api/sessions/app-1/kill")
      assert.strictEqual(killed.status, 200, killed.text)
      assert.strictEqual(decode(Killed, killed.json).record.status, "killed")
      yield* live.next("the killed record", is("session", (m) => m.sessionId === "app-1" && m.record?.status === "killed"))
      assert.notInclude(s.sessions(), "app-1")
      const refused = yield* api.post("/api/sessions/app-1/open")
      assert.strictEqual(refused.status, 409, "the worktree is gone")

      const restored = yield* api.post("/api/sessions/app-1/restore")
      assert.strictEqual(restored.status, 200, restored.text)
      assert.strictEqual(decode(SessionRecord, restored.json).status, "working")
      assert.isUndefined(decode(SessionRecord, restored.json).endedAt, "running again, so not ended")
      yield* eventually("the restored agent", () => s.screen("app-1").includes("ready app-1"))
      assert.strictEqual((yield* api.post("/api/sessions/app-1/restore")).status, 409, "it is running already")
      const noSuch = yield* api.post("/api/sessions/nope/kill")
      assert.strictEqual(noSuch.status, 404)
      assert.strictEqual(decode(ApiError, noSuch.json).error, "session_not_found")

      const timeline = decode(Schema.Array(OrchEvent), (yield* api.get("/api/sessions/app-1/events")).json).map((e) => e.type)
      const order = ["session.spawned", "session.message_sent", "session.killed", "session.restored"]
      assert.deepStrictEqual([...new Set(timeline.filter((t) => order.includes(t)))], order)
      assert.deepStrictEqual(decode(Schema.Array(OrchEvent), (yield* api.get("/api/sessions/app-1/events?limit=1")).json).length, 1)
      assert.strictEqual((yield* s.orch(["stop"])).code, 0)
    }), 90_000)

  it.live("orch stop with the live stream open: the stream ends whole with a last `stopping`, and the stop does not wait on it", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const api = dashboardClient(s)
      const live = yield* liveStream(api.base, api.token)
      yield* live.next("the snapshot", is("snapshot"))
      const ended = yield* Effect.forkChild(live.toEnd)
      const stopped = yield* s.orch(["stop"])
      const returned = Date.now()
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      // Receipts: the stream's own end, and the supervisor's log, which says when the grace ran out on a connection.
      const end = yield* Fiber.join(ended)
      assert.strictEqual(end.how, "ended")
      assert.strictEqual(end.kinds.at(-1), "stopping")
      assert.isAtMost(end.at, returned, "the stream ended before the stop did")
      assert.notInclude(readFileSync(join(s.dataDir, "supervisor.log"), "utf8"), "waited out its 1 s grace")
    }), 60_000)

  it.live(
    "a spawn whose process died shows as interrupted in the API and the live snapshot (one the supervisor cannot undo stays so)",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox()
        // A spawn of a project no longer configured, its process gone: nothing can undo it here, so it stays to be seen.
        const dead = spawnSync("true").pid!
        const at = new Date().toISOString()
        const record: SessionRecord = {
          sessionId: "old-1",
          projectId: "old",
          issueId: "5",
          status: "spawning",
          activity: "unknown",
          branch: "feat/5",
          workspacePath: join(s.dataDir, "worktrees", "old", "old-1"),
          runtime: null,
          agent: { plugin: "command" },
          pr: null,
          createdAt: at,
          updatedAt: at,
          spawn: { pid: dead, startedAt: at }
        }
        mkdirSync(join(s.dataDir, "sessions", "old", "old-1"), { recursive: true })
        writeFileSync(join(s.dataDir, "sessions", "old", "old-1", "session.json"), JSON.stringify(record))
        assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
        const api = dashboardClient(s)
        const sessions = decode(Schema.Array(SessionRecord), (yield* api.get("/api/sessions")).json)
        assert.strictEqual(sessions.find((r) => r.sessionId === "old-1")?.status, "interrupted")
        assert.strictEqual(decode(SessionRecord, (yield* api.get("/api/sessions/old-1")).json).status, "interrupted")
        const live = yield* liveStream(api.base, api.token)
        const snapshot = yield* live.next("the snapshot", is("snapshot"))
        assert.strictEqual(snapshot.sessions.find((r) => r.sessionId === "old-1")?.status, "interrupted")
        assert.strictEqual(s.record("app-orchestrator").status, "working", "the others as they are")
        assert.strictEqual(JSON.parse(readFileSync(join(s.dataDir, "sessions", "old", "old-1", "session.json"), "utf8")).status, "spawning", "never written so")
        assert.strictEqual((yield* s.orch(["stop"])).code, 0)
      }),
    60_000
  )
})
