import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Notification } from "../../../src/domain/notification.ts"
import { makeHostedNotifier } from "../../../src/plugins/notifier/hosted.ts"
import { Inbox, makeInbox } from "../../../src/store/Inbox.ts"
import { tempDir, writeFile } from "../../support/host.ts"

const note = (id: string, timestamp: string, extra: Partial<Notification> = {}): Notification => ({
  id,
  type: "session.stuck",
  priority: "warning",
  title: `title ${id}`,
  message: `message ${id}`,
  timestamp,
  ...extra
})

interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A local ntfy-like server: records each request and answers with `status` (or never, when `hang`). */
const ntfyServer = (answer: { readonly status: number; readonly body?: string; readonly hang?: boolean }) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly received: Array<Received>; readonly close: () => void }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
        req.on("end", () => {
          received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
          if (!answer.hang) res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body ?? "")
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          received,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })))
    }),
    (server) => Effect.sync(() => server.close())
  )

const decodeWord = (value: string | ReadonlyArray<string> | undefined) => {
  const match = /^=\?UTF-8\?B\?(.*)\?=$/.exec(String(value))
  return match ? Buffer.from(match[1]!, "base64").toString("utf8") : value
}

describe("hosted inbox (notifications.jsonl)", () => {
  it.effect("folds read markers, skips malformed lines, lists newest first", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      writeFile(
        join(dir, "notifications.jsonl"),
        [
          JSON.stringify(note("a", "2026-05-01T10:00:00.000Z")),
          "{not json",
          JSON.stringify({ id: "half", title: "missing fields" }),
          JSON.stringify(note("c", "2026-05-01T12:00:00.000Z")),
          JSON.stringify({ read: "a" }),
          "42",
          JSON.stringify(note("b", "2026-05-01T11:00:00.000Z")),
          ""
        ].join("\n")
      )
      const inbox = yield* Inbox.pipe(Effect.provide(Inbox.layer(dir)))
      const all = yield* inbox.list()
      assert.deepStrictEqual(all.map((n) => [n.id, n.read]), [["c", false], ["b", false], ["a", true]])
      assert.deepStrictEqual(all[0], { ...note("c", "2026-05-01T12:00:00.000Z"), read: false })
      assert.strictEqual(yield* inbox.unreadCount, 2)
      assert.deepStrictEqual((yield* inbox.list({ unreadOnly: true, limit: 1 })).map((n) => n.id), ["c"])

      yield* inbox.markRead(["b", "c"])
      assert.strictEqual(yield* inbox.unreadCount, 0)
      yield* inbox.add(note("d", "2026-05-01T13:00:00.000Z"))
      assert.deepStrictEqual((yield* inbox.list({ unreadOnly: true })).map((n) => n.id), ["d"])

      yield* TestClock.setTime(Date.parse("2026-05-02T00:00:00.000Z"))
      yield* inbox.markAllRead()
      yield* inbox.add(note("e", "2026-05-01T09:00:00.000Z"))
      assert.deepStrictEqual((yield* inbox.list()).map((n) => [n.id, n.read]), [["d", true], ["c", true], ["b", true], ["a", true], ["e", false]])
      assert.strictEqual(yield* inbox.unreadCount, 1)

      const lines = readFileSync(inbox.path, "utf8").trimEnd().split("\n")
      assert.strictEqual(lines.length, 12, "history is only ever appended to")
      assert.deepStrictEqual(lines.slice(7, 9).map((l) => JSON.parse(l)), [{ read: "b" }, { read: "c" }])
      assert.deepStrictEqual(JSON.parse(lines[10]!), { readAll: "2026-05-02T00:00:00.000Z" })
    }))

  it.effect("a missing file is an empty inbox; many concurrent adds stay intact", () =>
    Effect.gen(function*() {
      const inbox = makeInbox(join(yield* tempDir(), "nested"))
      assert.deepStrictEqual(yield* inbox.list(), [])
      assert.strictEqual(yield* inbox.unreadCount, 0)
      const big = "x".repeat(16_384)
      yield* Effect.all(
        Array.from({ length: 200 }, (_, i) => inbox.add(note(`n${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), { message: `${i} ${big}` }))),
        { concurrency: "unbounded" }
      )
      const entries = yield* inbox.list()
      assert.strictEqual(entries.length, 200)
      assert.deepStrictEqual(entries.slice(0, 2).map((n) => n.id), ["n199", "n198"])
      assert.isTrue(entries.every((n) => n.message === `${n.id.slice(1)} ${big}`))
      assert.isTrue(readFileSync(inbox.path, "utf8").trimEnd().split("\n").every((line) => JSON.parse(line).id !== undefined))
    }))
})

describe("notifier hosted", () => {
  it.live("adds to the inbox and forwards to an ntfy server with its headers", () =>
    Effect.gen(function*() {
      const server = yield* ntfyServer({ status: 200, body: "{\"id\":\"x\"}" })
      const inbox = makeInbox(yield* tempDir())
      const hosted = yield* makeHostedNotifier("hosted", { plugin: "hosted", url: `${server.url}/mytopic`, token: "tk_secret" }, inbox)
      const urgent = note("u1", "2026-05-01T10:00:00.000Z", { priority: "urgent", title: "Über stuck", prUrl: "https://github.com/acme/app/pull/7" })
      yield* hosted.notifyWithActions(urgent, [{ label: "Open PR", url: "https://github.com/acme/app/pull/7" }, { label: "Merge", callbackEndpoint: "/merge" }])
      yield* hosted.notify(note("i1", "2026-05-01T10:01:00.000Z", { priority: "info" }))
      yield* hosted.post("Status report\nall good", { sessionId: "app-1" })

      assert.deepStrictEqual(server.received.map((r) => [r.method, r.url, r.headers.priority, r.body]), [
        ["POST", "/mytopic", "5", "message u1"],
        ["POST", "/mytopic", "2", "message i1"],
        ["POST", "/mytopic", "2", "Status report\nall good"]
      ])
      const headers = server.received[0]!.headers
      assert.strictEqual(decodeWord(headers.title), "Über stuck")
      assert.strictEqual(headers.tags, "rotating_light,session.stuck")
      assert.strictEqual(headers.authorization, "Bearer tk_secret")
      assert.strictEqual(headers.click, "https://github.com/acme/app/pull/7")
      assert.strictEqual(headers.actions, "view, Open PR, https://github.com/acme/app/pull/7")
      assert.strictEqual(server.received[1]!.headers.title, "title i1")

      const entries = yield* inbox.list()
      assert.deepStrictEqual(entries.map((n) => n.id).slice(1), ["i1", "u1"])
      assert.deepStrictEqual(entries[2]!.actions, [{ label: "Open PR", url: "https://github.com/acme/app/pull/7" }, {
        label: "Merge",
        callbackEndpoint: "/merge"
      }])
      assert.include(entries[0]!, { type: "message", priority: "info", title: "Status report", sessionId: "app-1", read: false })
    }))

  it.live("a failed forward is a NotifierError, and the inbox entry is kept", () =>
    Effect.gen(function*() {
      const inbox = makeInbox(yield* tempDir())
      const denied = yield* ntfyServer({ status: 403, body: "forbidden: bad token" })
      const hosted = yield* makeHostedNotifier("hosted", { plugin: "hosted", url: `${denied.url}/t`, token: "tk_secret" }, inbox)
      const error = yield* Effect.flip(hosted.notify(note("f1", "2026-05-01T10:00:00.000Z")))
      assert.strictEqual(error.message, `notifier hosted: ${denied.url}/t answered HTTP 403: forbidden: bad token`)

      const hanging = yield* ntfyServer({ status: 200, hang: true })
      const slow = yield* makeHostedNotifier("hosted", { plugin: "hosted", url: `${hanging.url}/t` }, inbox, { timeout: "200 millis" })
      const timedOut = yield* Effect.flip(slow.notify(note("f2", "2026-05-01T10:01:00.000Z")))
      assert.strictEqual(timedOut.reason, `${hanging.url} did not answer within 200ms`)
      assert.isUndefined(hanging.received[0]!.headers.authorization)

      hanging.close()
      const gone = yield* Effect.flip(slow.notify(note("f3", "2026-05-01T10:02:00.000Z")))
      assert.include(gone.reason, `cannot reach ${hanging.url}`)

      assert.deepStrictEqual((yield* inbox.list()).map((n) => n.id), ["f3", "f2", "f1"])
    }))

  it.effect.each(
    [
      [{ url: "ftp://ntfy.example.com/t" }, "url must be http or https, not ftp:"],
      [{ url: "not a url" }, "url must be the http(s) URL of an ntfy topic"],
      [{ url: 42 }, "url must be the http(s) URL of an ntfy topic"],
      [{ url: "https://me:pw@ntfy.sh/t" }, "url must not hold credentials"],
      [{ url: "https://ntfy.sh/t", token: "" }, "token must be a non-empty string"]
    ] as const
  )("rejects bad settings at creation: %o", ([settings, expected]) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(makeHostedNotifier("hosted", { plugin: "hosted", ...settings }, makeInbox("/nonexistent")))
      assert.strictEqual(error._tag, "NotifierConfigError")
      assert.include(error.message, `notifier hosted: ${expected}`)
      assert.notInclude(error.message, "pw@")
    }))
})
