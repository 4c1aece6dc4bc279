import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { type EffectContext, runReactionEffect } from "../../actors/reaction-effects.ts"
import type { Notification } from "../../src/domain/notification.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { RuntimeError, type RuntimeShape } from "../../src/plugins/runtime/Runtime.ts"
import type { PullRequestView, ScmShape } from "../../src/plugins/scm/Scm.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { tempDir } from "../support/host.ts"

const record: SessionRecord = {
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status: "ci_failed",
  activity: "ready",
  branch: "feat/1",
  workspacePath: "/w",
  runtime: { plugin: "fake", id: "app-1", data: {} },
  agent: { plugin: "command" },
  pr: { number: 9, url: "https://github.com/acme/app/pull/9", state: "open" },
  createdAt: "",
  updatedAt: ""
}

const setup = (send: RuntimeShape["send"] = () => Effect.void) =>
  Effect.gen(function*() {
    const dir = yield* tempDir()
    const events = yield* EventLog.make(join(dir, "events.jsonl"))
    const sent: Array<string> = []
    const notified: Array<Notification> = []
    const runtime = { name: "fake", send: (h, text) => Effect.andThen(Effect.sync(() => sent.push(text)), send(h, text)) } as RuntimeShape
    const ctx: EffectContext = {
      project: {} as EffectContext["project"],
      record,
      runtime,
      events,
      router: {
        notify: (n) => Effect.sync(() => void notified.push(n)),
        deliver: () => Effect.succeed([]),
        settled: Effect.void,
        reconfigure: () => Effect.void
      }
    }
    const logged = () => existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : []
    return { ctx, sent, notified, logged }
  })

describe("reaction effects", () => {
  it.effect("send-to-agent types the message and records reaction.triggered with the PR", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* runReactionEffect(t.ctx, { _tag: "SendToAgent", reaction: "ci-failed", message: "fix CI", attempt: 1 })
      assert.deepStrictEqual(t.sent, ["fix CI"])
      assert.deepInclude(t.logged()[0], { type: "reaction.triggered", reaction: "ci-failed", action: "send-to-agent", sessionId: "app-1", prNumber: 9 })
      assert.deepStrictEqual(t.notified, [])
    }))

  it.effect("a send that fails, or has no message, is reported and notified, never dropped", () =>
    Effect.gen(function*() {
      const t = yield* setup(() => Effect.fail(new RuntimeError({ plugin: "fake", operation: "send", reason: "no such session" })))
      yield* runReactionEffect(t.ctx, { _tag: "SendToAgent", reaction: "ci-failed", message: "fix CI", attempt: 2 })
      yield* runReactionEffect(t.ctx, { _tag: "SendToAgent", reaction: "changes-requested", message: undefined, attempt: 1 })
      assert.strictEqual(t.logged()[0].data.failed, "fake: send failed: no such session")
      assert.strictEqual(t.logged()[1].data.failed, "the reaction has no message to send")
      assert.deepStrictEqual(t.notified.map((n) => [n.priority, n.type]), [["urgent", "reaction.failed"], ["urgent", "reaction.failed"]])
    }))

  it.effect("notify: at the reaction's priority, with the summary; auto false records without notifying", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* runReactionEffect(t.ctx, { _tag: "Notify", reaction: "agent-stuck", priority: "urgent", message: "stuck!", includeSummary: true, auto: true })
      yield* runReactionEffect(t.ctx, {
        _tag: "Notify",
        reaction: "approved-and-green",
        priority: "action",
        message: undefined,
        includeSummary: false,
        auto: false
      })
      assert.strictEqual(t.notified.length, 1)
      assert.deepInclude(t.notified[0], { priority: "urgent", type: "reaction.agent-stuck", prUrl: "https://github.com/acme/app/pull/9" })
      assert.include(t.notified[0]!.message, "app-1 (issue 1)")
      assert.deepStrictEqual(t.logged().map((e) => [e.reaction, e.data.auto]), [["agent-stuck", true], ["approved-and-green", false]])
    }))

  it.effect("escalation: reaction.escalated and an urgent notification", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* runReactionEffect(t.ctx, { _tag: "Escalate", reaction: "ci-failed", reason: "3 attempts" })
      assert.deepInclude(t.logged()[0], { type: "reaction.escalated", reaction: "ci-failed", message: "3 attempts" })
      assert.deepStrictEqual(t.notified.map((n) => n.priority), ["urgent"])
    }))

  it.effect("auto-merge without a repohost that can merge says so", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      yield* runReactionEffect(t.ctx, { _tag: "AutoMerge", reaction: "approved-and-green" })
      assert.include(t.logged()[0].data.failed, "no repohost plugin that can merge")
      assert.strictEqual(t.notified[0]!.priority, "action")
    }))

  it.effect("auto-merge looks once more, then merges with the project's mergeMethod; a blocked PR says why", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      const merged: Array<[number, string]> = []
      let view: PullRequestView = { pr: record.pr, checks: "passing", review: "approved", mergeable: true, failingChecks: [], reviewComments: [] }
      const scm: ScmShape = { name: "fake", observe: () => Effect.sync(() => view), merge: (n, method) => Effect.sync(() => void merged.push([n, method])) }
      const ctx = { ...t.ctx, scm, project: { scm: { plugin: "repohost", mergeMethod: "rebase" } } as unknown as EffectContext["project"] }
      yield* runReactionEffect(ctx, { _tag: "AutoMerge", reaction: "approved-and-green" })
      assert.deepStrictEqual(merged, [[9, "rebase"]])
      view = { ...view, checks: "failing", mergeable: false }
      yield* runReactionEffect(ctx, { _tag: "AutoMerge", reaction: "approved-and-green" })
      assert.strictEqual(merged.length, 1)
      assert.include(t.logged()[1].data.failed, "its checks are failing, it has conflicts")
    }))
})
