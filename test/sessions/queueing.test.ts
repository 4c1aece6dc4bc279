/**
 * Admission rounds (src/sessions/queueing.ts) on the real queue and event log, with a spawn that can be told to
 * fail: what fits no host at the spawn waits again; any other failure drops the entry, saying why. And rounds one
 * after another on a machine with room for 2.5 sessions: the sessions the last ones started hold their memory.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/testing/TestClock"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { NoHostFits, SpawnFailed } from "../../src/sessions/errors.ts"
import { makeQueueing } from "../../src/sessions/queueing.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { QueueStore } from "../../src/store/QueueStore.ts"
import { writeSessionSizes } from "../../src/store/session-sizes-file.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"
import { workingSession } from "../support/session-record.ts"

const setup = (spawnFails: () => NoHostFits | SpawnFailed | undefined) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({ projects: { app: { repo: "acme/app", path: join(root, "app"), tracker: { plugin: "none" } } } }).pipe(
      withHost({ cwd: root, homeDir: root })
    )
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const queue = QueueStore.make(root)
    const queueing = makeQueueing({
      queue,
      events,
      store: SessionStore.make(root),
      config: Effect.succeed(config),
      findProject: (c) => Effect.succeed(c.projects.app!),
      spawn: (_projectId, target) => {
        const failure = spawnFails()
        return failure !== undefined ? Effect.fail(failure) : Effect.succeed({ record: { sessionId: `app-${target._tag}` } as unknown as SessionRecord })
      },
      lookup: () => Effect.succeed(undefined),
      unplaceable: () => Effect.succeed({})
    })
    const types = () =>
      existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { type: string }).type) : []
    return { queue, queueing, types }
  })

describe("admission rounds", () => {
  it.effect("an entry whose spawn finds no host waits again, with the hosts' reason; nothing is dropped", () =>
    Effect.gen(function*() {
      const t = yield* setup(() => new NoHostFits({ reason: "no host can take the session: a: it is down (refused)" }))
      yield* t.queueing.queueAdd("app", ["7"], 0)
      const { waiting, dropped } = yield* t.queueing.admit()
      assert.deepStrictEqual(dropped, [])
      assert.deepStrictEqual(waiting.map((w) => [w.entry.issue, w.reason]), [[
        "7",
        "no host can take the session: a: it is down (refused); `orch hosts` shows each host's figures and errors"
      ]])
      assert.deepStrictEqual((yield* t.queue.list).map((entry) => entry.issue), ["7"])
      assert.notInclude(t.types(), "queue.dropped")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("any other failure drops the entry and says why, to the supervisor too (which notifies)", () =>
    Effect.gen(function*() {
      const t = yield* setup(() => new SpawnFailed({ project: "app", issueId: "7", step: "creating the workspace", reason: "git said no" }))
      yield* t.queueing.queueAdd("app", ["7"], 0)
      const { waiting, dropped } = yield* t.queueing.admit()
      assert.deepStrictEqual(waiting, [])
      assert.deepStrictEqual(dropped.map((d) => [d.entry.issue, d.reason]), [[
        "7",
        new SpawnFailed({ project: "app", issueId: "7", step: "creating the workspace", reason: "git said no" }).message
      ]])
      assert.deepStrictEqual(yield* t.queue.list, [])
      assert.include(t.types(), "queue.dropped")
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("admission rounds count the sessions they started", () => {
  const GB = 1024 ** 3
  const setupRounds = Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({ projects: { app: { repo: "acme/app", path: join(root, "app"), tracker: { plugin: "none" } } } }).pipe(
      withHost({ cwd: root, homeDir: root })
    )
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const store = SessionStore.make(root)
    // This machine's MemAvailable: the 1 GB reserve and room for 2.5 sessions of the default 1 GB.
    const free = yield* Ref.make(3.5 * GB)
    const queueing = makeQueueing({
      queue: QueueStore.make(root),
      events,
      store,
      config: Effect.succeed(config),
      findProject: (c) => Effect.succeed(c.projects.app!),
      // A spawn as the real one leaves it: a record, written now; its agent has not grown yet.
      spawn: (_projectId, target) =>
        Effect.gen(function*() {
          const sessionId = yield* store.reserve("app", "app")
          const record = workingSession(yield* Clock.currentTimeMillis, { sessionId, issueId: target._tag === "Issue" ? target.issue : "task" })
          yield* store.write(record)
          return { record }
        }).pipe(Effect.orDie),
      lookup: () => Effect.succeed(undefined),
      unplaceable: () => Effect.succeed({}),
      machine: Effect.all({ freeBytes: Ref.get(free), readAt: Clock.currentTimeMillis }).pipe(Effect.map((m) => ({ ...m, load: 0, cores: 4 })))
    })
    const admitted = () =>
      readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { type: string; issueId?: string }).filter((e) =>
        e.type === "queue.admitted"
      ).map((e) => e.issueId)
    return { root, store, free, queueing, admitted }
  })

  it.effect("room for 2.5 sessions: rounds one after another admit 2, and say why the others wait", () =>
    Effect.gen(function*() {
      const t = yield* setupRounds
      yield* t.queueing.queueAdd("app", ["1", "2", "3", "4"], 0)
      const held = "waiting for memory on this machine: 2.5 GB free, 2.0 GB of it held for 2 sessions not yet measured (1.0 GB each), 1.0 GB needed"
      const first = yield* t.queueing.admit()
      assert.deepStrictEqual(t.admitted(), ["1", "2"])
      assert.deepStrictEqual(first.waiting.map((w) => [w.entry.issue, w.reason]), [["3", held], ["4", held]])
      // The next round, and the one after, three seconds apart (the supervisor's pace): nothing more starts.
      for (let round = 0; round < 2; round++) {
        yield* TestClock.adjust("3 seconds")
        const again = yield* t.queueing.admit()
        assert.deepStrictEqual(again.waiting.map((w) => w.reason), [held, held])
      }
      assert.deepStrictEqual(t.admitted(), ["1", "2"])
      assert.deepStrictEqual((yield* t.store.list).records.map((r) => r.issueId).toSorted(), ["1", "2"])

      // A minute on the agents have grown (MemAvailable shows them) and the supervisor's sample includes them: the
      // reservations end, and the machine's own figure holds the others back.
      yield* TestClock.adjust("55 seconds")
      yield* Ref.set(t.free, 1.5 * GB)
      yield* writeSessionSizes(t.root, { at: new Date(yield* Clock.currentTimeMillis).toISOString(), agents: { "coding-agent": { bytes: GB, rounds: 1 } } })
      const grown = yield* t.queueing.admit()
      assert.deepStrictEqual(grown.waiting.map((w) => w.reason), [
        "waiting for memory on this machine: 512 MB free, 1.0 GB needed",
        "waiting for memory on this machine: 512 MB free, 1.0 GB needed"
      ])

      // One ends and its memory frees: the next entry starts, and holds its own reservation against the last.
      const ended = (yield* t.store.list).records.find((r) => r.issueId === "1")!
      yield* t.store.write({ ...ended, status: "killed", activity: "exited" })
      yield* Ref.set(t.free, 2.5 * GB)
      const freed = yield* t.queueing.admit()
      assert.deepStrictEqual(t.admitted(), ["1", "2", "3"])
      assert.deepStrictEqual(freed.waiting.map((w) => [w.entry.issue, w.reason]), [[
        "4",
        "waiting for memory on this machine: 1.5 GB free, 1.0 GB of it held for 1 session not yet measured, 1.0 GB needed"
      ]])
    }).pipe(Effect.provide(NodeServices.layer)))
})
