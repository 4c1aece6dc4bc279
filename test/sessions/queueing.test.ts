/**
 * Admission rounds (src/sessions/queueing.ts) on the real queue and event log, with a spawn that can be told to
 * fail: what fits no host at the spawn waits again; any other failure drops the entry, saying why.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { NoHostFits, SpawnFailed } from "../../src/sessions/errors.ts"
import { makeQueueing } from "../../src/sessions/queueing.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { QueueStore } from "../../src/store/QueueStore.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"

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
