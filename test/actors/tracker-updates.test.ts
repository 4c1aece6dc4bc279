/**
 * Session events told to the tracker while the supervisor runs: tracker-b comments on the Linear issue (the
 * local Linear checks each document against Linear's schema); a failure becomes a `tracker.update_failed` event.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { makeLoopGuard } from "../../actors/loop-guard.ts"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import { followSessionEvents } from "../../actors/tracker-updates.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { makeLinearTracker } from "../../src/plugins/tracker/tracker-b.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { eventually } from "../support/eventually.ts"
import { tempDir, withHost, writeFile } from "../support/host.ts"
import { linearServer } from "../support/linear-server.ts"

const setup = Effect.gen(function*() {
  const root = yield* tempDir()
  const linear = yield* linearServer({ apiKey: "key", teams: [{ id: "t-eng", key: "ENG" }], issues: [{ identifier: "ENG-123", title: "Fix it" }] })
  const config = yield* validateConfig({
    projects: {
      app: {
        repo: "acme/app",
        path: join(root, "app"),
        tracker: { plugin: "tracker-b", teamId: "ENG", apiKey: "key", apiUrl: linear.url, commentOn: ["session.spawned", "pr.merged", "tracker.update_failed"] }
      }
    }
  }).pipe(withHost({ cwd: root, homeDir: root }))
  const store = SessionStore.make(root)
  const events = yield* EventLog.make(join(root, "events.jsonl"))
  const record: SessionRecord = {
    sessionId: "app-1",
    projectId: "app",
    issueId: "ENG-123",
    status: "working",
    activity: "active",
    branch: "alice/eng-123-fix-it",
    workspacePath: join(root, "w"),
    runtime: null,
    agent: { plugin: "command" },
    pr: { number: 9, url: "https://github.com/acme/app/pull/9", state: "merged" },
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z"
  }
  yield* store.write(record)
  const tracker = yield* makeLinearTracker(config.projects.app!)
  const router = yield* NotifierRouter.make(new Map(), { urgent: [], action: [], warning: [], info: [] }).pipe(Effect.provideService(EventLog, events))
  const loop = makeLoopGuard({ events, notify: router.notify, logPath: join(root, "supervisor.log") })("tracker updates")
  yield* followSessionEvents({ events, store, trackerOf: (projectId) => (projectId === "app" ? tracker : undefined), loop })
  const logged = () => (existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : [])
  return { linear, events, logged, root }
})

describe("tracker updates", () => {
  it.live("the events in commentOn become comments on the session's issue; others and unknown sessions do not", () =>
    Effect.gen(function*() {
      const { linear, events } = yield* setup
      yield* events.append({ type: "session.spawned", sessionId: "app-1", projectId: "app", issueId: "ENG-123" })
      yield* events.append({ type: "session.stuck", sessionId: "app-1" })
      yield* events.append({ type: "session.spawned", sessionId: "app-7" })
      yield* events.append({ type: "pr.merged", sessionId: "app-1", prNumber: 9 })
      yield* eventually("two comments", () => linear.comments.length === 2)
      assert.deepStrictEqual(linear.comments, [
        { issue: "ENG-123", body: "orch session `app-1` started work on this issue, on branch `alice/eng-123-fix-it`." },
        { issue: "ENG-123", body: "The pull request of orch session `app-1` merged: https://github.com/acme/app/pull/9" }
      ])
      assert.deepStrictEqual(linear.requests.map((r) => r.status), [200, 200])
    }))

  it.live("a tracker that fails is recorded once as tracker.update_failed, and not told about that", () =>
    Effect.gen(function*() {
      const { linear, events, logged } = yield* setup
      linear.rateLimited = true
      yield* events.append({ type: "session.spawned", sessionId: "app-1", projectId: "app", issueId: "ENG-123" })
      const failed = yield* eventually("the failure event", () => logged().find((e) => e.type === "tracker.update_failed"))
      assert.deepInclude(failed, { sessionId: "app-1", projectId: "app", issueId: "ENG-123" })
      assert.match(failed.message, /^tracker-b could not be told about session\.spawned: tracker-b http:.* unavailable: rate limited until /)
      // Events are told in order: once a later one is commented, the failure event has been passed over.
      linear.rateLimited = false
      yield* events.append({ type: "pr.merged", sessionId: "app-1", prNumber: 9 })
      yield* eventually("the next comment", () => linear.comments.length === 1)
      assert.strictEqual(linear.requests.length, 2, "its own failure is not sent to the tracker")
    }))

  it.live("a record it cannot read is a supervisor.error of the tracker updates, which go on with the next event", () =>
    Effect.gen(function*() {
      const { linear, events, logged, root } = yield* setup
      const damaged = writeFile(join(root, "sessions", "app", "app-2", "session.json"), "{ not json")
      yield* events.append({ type: "session.spawned", sessionId: "app-2", projectId: "app", issueId: "ENG-124" })
      const error = yield* eventually("the supervisor.error", () => logged().find((e) => e.type === "supervisor.error"))
      assert.deepStrictEqual(error.data, { loop: "tracker updates", attempt: 1 })
      assert.include(error.message, `Tracker updates failed: cannot use ${damaged}`)
      assert.include(error.message, "session.spawned of app-2 is not told to the tracker.")
      yield* events.append({ type: "pr.merged", sessionId: "app-1", prNumber: 9 })
      yield* eventually("the next comment", () => linear.comments.length === 1)
    }))
})
