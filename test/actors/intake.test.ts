/**
 * The intake loop (actors/intake.ts) under TestClock, on the in-memory tracker, a real queue file and event log:
 * one request per project per `pollIntervalMs`, labelled issues queued once with their labels' priority, a closed
 * one's entry dropped, the seen set kept across supervisors, and a tracker that cannot be asked reported.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { makeIntake } from "../../actors/intake.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { makeTestTracker, type TrackerShape } from "../../src/plugins/tracker/Tracker.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { QueueStore } from "../../src/store/QueueStore.ts"
import { tempDir, withHost } from "../support/host.ts"

const setup = Effect.gen(function*() {
  const root = yield* tempDir("orch-intake-")
  const config = yield* validateConfig({
    projects: {
      app: {
        repo: "acme/app",
        path: join(root, "app"),
        intake: { labels: ["orch"], pollIntervalMs: 60_000, priorities: { urgent: 5 } }
      }
    }
  }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
  const project = config.projects.app!
  const tracker = makeTestTracker([
    { id: "1", title: "one", body: "", labels: ["orch"] },
    { id: "2", title: "two", body: "", labels: ["bug"] },
    { id: "3", title: "three", body: "", labels: ["orch", "urgent"] }
  ])
  let asked = 0
  const counted: TrackerShape = { ...tracker, openIssues: (labels) => Effect.suspend(() => (asked++, tracker.openIssues!(labels))) }
  const events = yield* EventLog.make(join(root, "events.jsonl"))
  const queue = QueueStore.make(root, events)
  const records: Array<SessionRecord> = []
  let woken = 0
  const make = (trackerShape: TrackerShape = counted) =>
    makeIntake({
      root,
      events,
      queue,
      records: Effect.sync(() => records),
      projects: Effect.succeed([{ project, tracker: trackerShape }]),
      admitSoon: Effect.sync(() => void woken++)
    })
  const queued = Effect.map(queue.list, (entries) => entries.map((e) => `${e.issue}:${e.priority}${e.by === "intake" ? ":intake" : ""}`))
  const types = () => readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { type: string; data?: { by?: string } })
  return { root, tracker, make, queued, types, asked: () => asked, woken: () => woken, queue }
})

describe("intake loop under TestClock", () => {
  it.effect("one request per pollIntervalMs; labelled issues queued once, by their labels' priority; a closed one's entry dropped", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const intake = t.make()
      yield* intake.round()
      assert.strictEqual(t.asked(), 1)
      assert.deepStrictEqual(yield* t.queued, ["3:5:intake", "1:0:intake"])
      assert.strictEqual(t.woken(), 1, "admission is told at once")
      assert.deepStrictEqual(t.types().map((e) => [e.type, e.data?.by]), [["queue.added", "intake"], ["queue.added", "intake"]])

      // Not due before the interval: no request (the loop sleeps until it is due). A person removes issue 1: the next
      // poll does not queue it again.
      assert.strictEqual(yield* intake.untilDue, 60_000)
      yield* TestClock.adjust(59_999)
      assert.strictEqual(yield* intake.untilDue, 1)
      yield* intake.round()
      assert.strictEqual(t.asked(), 1)
      yield* t.queue.remove("1", "removed (orch queue rm)")
      t.tracker.issues.set("4", { id: "4", title: "four", body: "", labels: ["orch"] })
      yield* TestClock.adjust(1)
      yield* intake.round()
      assert.strictEqual(t.asked(), 2)
      assert.deepStrictEqual(yield* t.queued, ["3:5:intake", "4:0:intake"])

      // Issue 3 closes: its entry is dropped at the next poll.
      t.tracker.issues.set("3", { ...t.tracker.issues.get("3")!, state: { name: "closed", completed: true } })
      yield* TestClock.adjust(60_000)
      yield* intake.round()
      assert.deepStrictEqual(yield* t.queued, ["4:0:intake"])
      assert.strictEqual(t.types().at(-1)?.type, "queue.dropped")

      // A new supervisor (a fresh loop) reads what was seen: nothing is queued twice.
      yield* t.make().round()
      assert.deepStrictEqual(yield* t.queued, ["4:0:intake"])
      assert.deepStrictEqual(JSON.parse(readFileSync(join(t.root, "intake.json"), "utf8")), { projects: { app: ["1", "4"] } })
    }))

  it.effect("a tracker that cannot list issues by label is reported, naming the project", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const { openIssues: _, ...blind } = t.tracker
      const failed = yield* Effect.flip(t.make(blind).round())
      assert.strictEqual(failed.message, "app's intake: its tracker (test) cannot list issues by label")
    }))
})
