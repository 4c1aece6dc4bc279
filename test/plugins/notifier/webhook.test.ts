import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import type { Notification } from "../../../src/domain/notification.ts"
import { makeWebhookNotifier } from "../../../src/plugins/notifier/webhook.ts"
import { closedPort, endpoint, type Reply, sleepRecorder } from "./http-target.ts"

const full: Notification = {
  id: "n-1",
  type: "session.stuck",
  priority: "urgent",
  title: "app-1 is stuck",
  message: "No output for 10 minutes",
  timestamp: "2026-01-02T03:04:05.000Z",
  sessionId: "app-1",
  projectId: "app",
  prUrl: "https://github.com/acme/app/pull/7",
  data: { minutes: 10 }
}
const minimal: Notification = { id: "n-2", type: "all.complete", priority: "info", title: "Done", message: "All done", timestamp: "2026-01-02T03:04:05.000Z" }

const webhook = (url: unknown, rest: Record<string, unknown> = {}) => makeWebhookNotifier("hook", { plugin: "webhook", url, ...rest })

/** An endpoint answering `first` to request 1..n and 200 afterwards. */
const failingFirst = (n: number, first: Reply) => endpoint((k) => (k <= n ? first : { status: 200 }))

describe("webhook notifier: creation", () => {
  it.effect.each(
    [
      [undefined, "`url` is required: the http or https URL to POST to"],
      ["", "`url` is required: the http or https URL to POST to"],
      ["ftp://example.com/hook", "`url` must be an http or https URL, got ftp in \"ftp://example.com/hook\""],
      ["not a url", "`url` is not a valid URL: \"not a url\""],
      [42, "`url` must be an http or https URL, got 42"]
    ] as const
  )("url %j is refused: %s", ([url, reason]) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(webhook(url))
      assert.strictEqual(error._tag, "NotifierConfigError")
      assert.strictEqual(error.message, `notifier hook: ${reason}`)
    }))

  it.effect("http and https URLs are accepted without contacting them", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* webhook("https://hooks.example.com/x")).name, "hook")
      assert.strictEqual((yield* webhook("http://localhost:9/x")).name, "hook")
    }))
})

describe("webhook notifier: requests", () => {
  it.effect("POSTs JSON with the string headers; other header values are dropped", () =>
    Effect.gen(function*() {
      const server = yield* endpoint()
      const headers = { authorization: "Bearer s3cret", "x-api-key": "k1", "x-count": 3, "x-obj": { a: 1 }, "Content-Type": "text/plain" }
      yield* (yield* webhook(`${server.url}/hooks/orch`, { headers })).notify(minimal)
      const [request] = server.requests
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.path, "/hooks/orch")
      assert.strictEqual(request?.headers["content-type"], "application/json")
      assert.strictEqual(request?.headers.authorization, "Bearer s3cret")
      assert.strictEqual(request?.headers["x-api-key"], "k1")
      assert.notProperty(request?.headers, "x-count")
      assert.notProperty(request?.headers, "x-obj")
    }))

  it.effect("the three body shapes", () =>
    Effect.gen(function*() {
      const server = yield* endpoint()
      const notifier = yield* webhook(server.url)
      yield* notifier.notify(full)
      yield* notifier.notify(minimal)
      yield* notifier.notifyWithActions!(full, [
        { label: "Merge", callbackEndpoint: "/api/sessions/app-1/merge" },
        { label: "Open PR", url: "https://github.com/acme/app/pull/7" }
      ])
      yield* notifier.post!("Batch finished", { sessionId: "app-1", projectId: "app", prUrl: "https://github.com/acme/app/pull/7", channel: "#ops" })
      yield* notifier.post!("Hello", {})
      const event = {
        id: "n-1",
        type: "session.stuck",
        priority: "urgent",
        sessionId: "app-1",
        projectId: "app",
        timestamp: "2026-01-02T03:04:05.000Z",
        message: "No output for 10 minutes",
        data: { minutes: 10 }
      }
      assert.deepStrictEqual(server.requests.map((r) => r.body), [
        { type: "notification", event },
        { type: "notification", event: { id: "n-2", type: "all.complete", priority: "info", timestamp: "2026-01-02T03:04:05.000Z", message: "All done" } },
        {
          type: "notification_with_actions",
          event,
          actions: [{ label: "Merge", callbackEndpoint: "/api/sessions/app-1/merge" }, { label: "Open PR", url: "https://github.com/acme/app/pull/7" }]
        },
        {
          type: "message",
          message: "Batch finished",
          context: { sessionId: "app-1", projectId: "app", prUrl: "https://github.com/acme/app/pull/7", channel: "#ops" }
        },
        { type: "message", message: "Hello", context: {} }
      ])
    }))
})

describe("webhook notifier: retries (TestClock)", () => {
  it.effect.each([429, 500, 502, 503, 504])("HTTP %d is retried after 1000 ms", (status) =>
    Effect.gen(function*() {
      const server = yield* failingFirst(1, { status })
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url)).notify(minimal)))
      assert.strictEqual(yield* clock.nextDelay, 1000)
      yield* TestClock.adjust(1000)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(server.requests.map((r) => r.at), [0, 1000])
    }))

  it.effect.each([400, 401, 403, 404, 422])("HTTP %d is not retried", (status) =>
    Effect.gen(function*() {
      const server = yield* failingFirst(1, { status })
      const clock = yield* sleepRecorder
      const error = yield* Effect.flip(clock.run((yield* webhook(server.url)).notify(minimal)))
      assert.strictEqual(error._tag, "NotifierError")
      assert.include(error.message, `HTTP ${status} (not retried) after 1 attempt`)
      assert.strictEqual(server.requests.length, 1)
      assert.deepStrictEqual(clock.all, [10_000])
    }))

  it.effect("delays are 1000, 2000, 4000 ms with retries 3; the error names the status and the attempts", () =>
    Effect.gen(function*() {
      const server = yield* endpoint(() => ({ status: 503 }))
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url, { retries: 3 })).notify(minimal)))
      yield* server.next
      for (const [attempt, delay] of [[1, 1000], [2, 2000], [3, 4000]] as const) {
        assert.strictEqual(yield* clock.nextDelay, delay)
        yield* TestClock.adjust(delay - 1)
        assert.strictEqual(server.requests.length, attempt, `retry ${attempt} went out early`)
        yield* TestClock.adjust(1)
        yield* server.next
      }
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.deepStrictEqual(server.requests.map((r) => r.at), [0, 1000, 3000, 7000])
      assert.deepStrictEqual(clock.all, [10_000, 1000, 10_000, 2000, 10_000, 4000, 10_000])
      assert.match(error.message, /^notifier hook: POST to 127\.0\.0\.1:\d+ failed: HTTP 503 after 4 attempts$/)
    }))

  it.effect("connection refused is retried (default: 2 retries)", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(`http://127.0.0.1:${port}/`)).notify(minimal)))
      assert.strictEqual(yield* clock.nextDelay, 1000)
      yield* TestClock.adjust(1000)
      assert.strictEqual(yield* clock.nextDelay, 2000)
      yield* TestClock.adjust(2000)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.include(error.message, "connection refused (ECONNREFUSED) after 3 attempts")
    }))

  it.effect("a request without an answer times out after 10 s and is retried", () =>
    Effect.gen(function*() {
      const server = yield* endpoint(() => "hang")
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url, { retries: 1 })).notify(minimal)))
      yield* server.next
      assert.strictEqual(yield* clock.next, 10_000)
      yield* TestClock.adjust(10_000)
      assert.strictEqual(yield* clock.next, 1000)
      yield* TestClock.adjust(1000)
      yield* server.next
      yield* TestClock.adjust(10_000)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.deepStrictEqual(server.requests.map((r) => r.at), [0, 11_000])
      assert.include(error.message, "no answer within 10 s after 2 attempts")
    }))

  it.effect("retries 0 makes one attempt", () =>
    Effect.gen(function*() {
      const server = yield* endpoint(() => ({ status: 500 }))
      const clock = yield* sleepRecorder
      const error = yield* Effect.flip(clock.run((yield* webhook(server.url, { retries: 0 })).notify(minimal)))
      assert.include(error.message, "HTTP 500 after 1 attempt")
      assert.strictEqual(server.requests.length, 1)
      assert.deepStrictEqual(clock.all, [10_000])
    }))

  it.effect.each([-1, 1.5, "3", null])("retries %o falls back to 2", (retries) =>
    Effect.gen(function*() {
      const server = yield* endpoint(() => ({ status: 500 }))
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url, { retries })).notify(minimal)))
      yield* TestClock.adjust(yield* clock.nextDelay)
      yield* TestClock.adjust(yield* clock.nextDelay)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.include(error.message, "after 3 attempts")
      assert.strictEqual(server.requests.length, 3)
    }))

  it.effect.each([-5, "2000", null, Number.NaN])("retryDelayMs %o falls back to 1000", (retryDelayMs) =>
    Effect.gen(function*() {
      const server = yield* failingFirst(1, { status: 503 })
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url, { retryDelayMs })).notify(minimal)))
      assert.strictEqual(yield* clock.nextDelay, 1000)
      yield* TestClock.adjust(1000)
      yield* Fiber.join(fiber)
    }))

  it.effect("retryDelayMs 250 gives 250, 500", () =>
    Effect.gen(function*() {
      const server = yield* failingFirst(2, { status: 502 })
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url, { retryDelayMs: 250 })).notify(minimal)))
      assert.strictEqual(yield* clock.nextDelay, 250)
      yield* TestClock.adjust(250)
      assert.strictEqual(yield* clock.nextDelay, 500)
      yield* TestClock.adjust(500)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(server.requests.map((r) => r.at), [0, 250, 750])
    }))

  it.effect.each(
    [
      ["7", 7000],
      [new Date(5000).toUTCString(), 5000],
      ["3600", 300_000],
      ["soon", 1000]
    ] as const
  )("429 with Retry-After %j waits %d ms", ([retryAfter, wait]) =>
    Effect.gen(function*() {
      const server = yield* failingFirst(1, { status: 429, headers: { "retry-after": retryAfter } })
      const clock = yield* sleepRecorder
      const fiber = yield* Effect.forkChild(clock.run((yield* webhook(server.url)).notify(minimal)))
      assert.strictEqual(yield* clock.nextDelay, wait)
      yield* TestClock.adjust(wait)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(server.requests.map((r) => r.at), [0, wait])
    }))

  it.effect("errors name the host but neither header values nor the URL path", () =>
    Effect.gen(function*() {
      const server = yield* endpoint(() => ({ status: 500 }))
      const notifier = yield* webhook(`${server.url}/hooks/T0/SECRETPATH`, { retries: 0, headers: { authorization: "Bearer s3cret" } })
      const error = yield* Effect.flip(notifier.post!("hi", {}))
      assert.include(error.message, new URL(server.url).host)
      assert.notInclude(error.message, "s3cret")
      assert.notInclude(error.message, "SECRETPATH")
    }))
})
