import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import type { Notification } from "../../../src/domain/notification.ts"
import { makeChatNotifier } from "../../../src/plugins/notifier/chat.ts"
import { closedPort, endpoint, sleepRecorder } from "./http-target.ts"

const stuck: Notification = {
  id: "n-1",
  type: "session.stuck",
  priority: "urgent",
  title: "app-1 is stuck",
  message: "No output for 10 minutes <since 03:04> & counting",
  timestamp: "2026-01-02T03:04:05.000Z",
  sessionId: "app-1",
  projectId: "app",
  prUrl: "https://github.com/acme/app/pull/7"
}

const chat = (config: Record<string, unknown>) => makeChatNotifier("team-chat", { plugin: "chat", ...config })

describe("chat notifier: creation", () => {
  it.effect.each(
    [
      [{}, "`webhookUrl` is required: the http or https URL to POST to"],
      [{ webhookUrl: "ftp://hooks.example.com/x" }, "`webhookUrl` must be an http or https URL, got ftp in \"ftp://hooks.example.com/x\""],
      [{ webhook: "hooks.example.com/x" }, "`webhook` is not a valid URL: \"hooks.example.com/x\""]
    ] as const
  )("%j is refused", ([config, reason]) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(chat(config))
      assert.strictEqual(error._tag, "NotifierConfigError")
      assert.strictEqual(error.message, `notifier team-chat: ${reason}`)
    }))

  it.effect("`webhook` is accepted in place of `webhookUrl`", () =>
    Effect.gen(function*() {
      const server = yield* endpoint()
      yield* (yield* chat({ webhook: `${server.url}/services/T0/B0/x` })).post!("hi", {})
      assert.strictEqual(server.requests[0]?.path, "/services/T0/B0/x")
      assert.strictEqual(server.requests[0]?.headers["content-type"], "application/json")
    }))
})

describe("chat notifier: Block Kit bodies", () => {
  it.effect("notify: fallback text, header with the priority emoji, message, facts, PR link, channel", () =>
    Effect.gen(function*() {
      const server = yield* endpoint()
      yield* (yield* chat({ webhookUrl: server.url, channel: "#orch" })).notify(stuck)
      assert.deepStrictEqual(server.requests[0]?.body, {
        channel: "#orch",
        text: ":rotating_light: [urgent] app-1 is stuck: No output for 10 minutes &lt;since 03:04&gt; &amp; counting",
        blocks: [
          { type: "header", text: { type: "plain_text", text: ":rotating_light: app-1 is stuck", emoji: true } },
          { type: "section", text: { type: "mrkdwn", text: "No output for 10 minutes &lt;since 03:04&gt; &amp; counting" } },
          { type: "context", elements: [{ type: "mrkdwn", text: "*Priority:* urgent  |  *Session:* `app-1`  |  *Project:* app" }] },
          { type: "section", text: { type: "mrkdwn", text: ":link: <https://github.com/acme/app/pull/7|View pull request>" } }
        ]
      })
    }))

  it.effect("notifyWithActions: url actions become buttons; no channel key without a channel", () =>
    Effect.gen(function*() {
      const server = yield* endpoint()
      const notifier = yield* chat({ webhookUrl: server.url })
      yield* notifier.notifyWithActions!({
        id: "n-2",
        type: "pr.approved",
        priority: "action",
        title: "Ready to merge",
        message: "CI green",
        timestamp: "2026-01-02T03:04:05.000Z"
      }, [
        { label: "Open PR", url: "https://github.com/acme/app/pull/7" },
        { label: "Merge", callbackEndpoint: "/api/sessions/app-1/merge" },
        { label: "Dashboard", url: "http://localhost:3000/sessions/app-1" }
      ])
      assert.deepStrictEqual(server.requests[0]?.body, {
        text: ":point_right: [action] Ready to merge: CI green",
        blocks: [
          { type: "header", text: { type: "plain_text", text: ":point_right: Ready to merge", emoji: true } },
          { type: "section", text: { type: "mrkdwn", text: "CI green" } },
          { type: "context", elements: [{ type: "mrkdwn", text: "*Priority:* action" }] },
          {
            type: "actions",
            elements: [
              {
                type: "button",
                text: { type: "plain_text", text: "Open PR", emoji: true },
                url: "https://github.com/acme/app/pull/7",
                action_id: "orch-action-0"
              },
              {
                type: "button",
                text: { type: "plain_text", text: "Dashboard", emoji: true },
                url: "http://localhost:3000/sessions/app-1",
                action_id: "orch-action-2"
              }
            ]
          }
        ]
      })
    }))

  it.effect("post: the message with its context; the context's channel wins over the configured one", () =>
    Effect.gen(function*() {
      const server = yield* endpoint()
      const notifier = yield* chat({ webhookUrl: server.url, channel: "#orch" })
      yield* notifier.post!("Batch finished", { sessionId: "app-1", prUrl: "https://github.com/acme/app/pull/7", channel: "#ops" })
      yield* notifier.post!("Plain", {})
      assert.deepStrictEqual(server.requests.map((r) => r.body), [
        {
          channel: "#ops",
          text: "Batch finished",
          blocks: [
            { type: "section", text: { type: "mrkdwn", text: "Batch finished" } },
            { type: "context", elements: [{ type: "mrkdwn", text: "*Session:* `app-1`" }] },
            { type: "section", text: { type: "mrkdwn", text: ":link: <https://github.com/acme/app/pull/7|View pull request>" } }
          ]
        },
        { channel: "#orch", text: "Plain", blocks: [{ type: "section", text: { type: "mrkdwn", text: "Plain" } }] }
      ])
    }))
})

describe("chat notifier: delivery (same policy as the webhook notifier)", () => {
  it.effect("a 503 is retried after retryDelayMs; a 404 is not", () =>
    Effect.gen(function*() {
      const server = yield* endpoint((n) => ({ status: n === 1 ? 503 : n === 2 ? 200 : 404 }))
      const clock = yield* sleepRecorder
      const notifier = yield* chat({ webhookUrl: `${server.url}/services/T0/B0/SECRET`, retryDelayMs: 500 })
      const fiber = yield* Effect.forkChild(clock.run(notifier.notify(stuck)))
      assert.strictEqual(yield* clock.nextDelay, 500)
      yield* TestClock.adjust(500)
      yield* Fiber.join(fiber)
      const error = yield* Effect.flip(notifier.notify(stuck))
      assert.deepStrictEqual(server.requests.map((r) => r.at), [0, 500, 500])
      assert.include(error.message, "HTTP 404 (not retried) after 1 attempt")
      assert.notInclude(error.message, "SECRET")
    }))

  it.effect("connection refused is retried `retries` times", () =>
    Effect.gen(function*() {
      const clock = yield* sleepRecorder
      const notifier = yield* chat({ webhookUrl: `http://127.0.0.1:${yield* closedPort}/x`, retries: 1 })
      const fiber = yield* Effect.forkChild(clock.run(notifier.post!("hi", {})))
      yield* TestClock.adjust(yield* clock.nextDelay)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.include(error.message, "connection refused (ECONNREFUSED) after 2 attempts")
    }))
})
