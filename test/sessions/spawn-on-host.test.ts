/**
 * A spawn on another host (its start there as one script, HostStart), on the slots' in-memory fakes and a real
 * session store: what it writes down, in order. The worktree the host made is journaled where the host made it
 * before the record names it, and no later write takes that back (reconcile undoes a spawn from its journal).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { Agent } from "../../src/plugins/agent/Agent.ts"
import { HostStart, type HostStartShape } from "../../src/plugins/host-start.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { makeTestTracker, Tracker } from "../../src/plugins/tracker/Tracker.ts"
import { makeTestWorkspace, Workspace } from "../../src/plugins/workspace/Workspace.ts"
import { spawnSession } from "../../src/sessions/spawn.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"

describe("a spawn on another host", () => {
  it.effect("journals the worktree where the host made it before the record names it, and keeps it journaled", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const config = yield* validateConfig({
        projects: { app: { repo: "acme/app", path: join(root, "app"), agent: "command", agentConfig: { command: "true" } } }
      }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
      const store = SessionStore.make(root)
      const writes: Array<SessionRecord> = []
      const recording = SessionStore.of({
        ...store,
        write: (record, options) => Effect.andThen(Effect.sync(() => void writes.push(record)), store.write(record, options))
      })
      // The host makes the worktree somewhere else than asked (its data dir resolved there), and the agent is up.
      const hostStart: HostStartShape = {
        host: "b",
        handleOf: (sessionId) => ({ plugin: "remote-tmux", id: sessionId, data: { host: "b" } }),
        origin: () => Effect.succeed("https://example.invalid/acme/app.git"),
        start: (plan) =>
          Effect.succeed({
            path: `${plan.workspace.path}-there`,
            createdBranch: true,
            handle: { plugin: "remote-tmux", id: plan.launch.sessionId, data: { host: "b" } },
            watched: { liveness: { _tag: "Alive" }, screen: "" }
          })
      }
      const slots = Layer.mergeAll(
        Runtime.layerTest(makeTestRuntime()),
        Agent.layerTest(),
        Workspace.layerTest(makeTestWorkspace()),
        Tracker.layerTest(makeTestTracker([{ id: "7", title: "Make it fast", body: "It is slow.", labels: [] }])),
        Layer.succeed(SessionStore, recording),
        Layer.succeed(EventLog, yield* EventLog.make(join(root, "events.jsonl")))
      )
      const dataDir = join(root, "b-data")
      const { record } = yield* spawnSession(config.projects.app!, { _tag: "Issue", issue: "7" }, {
        host: "b",
        hostDataDir: dataDir,
        hostOrigin: "https://example.invalid/acme/app.git"
      }).pipe(Effect.provideService(HostStart, hostStart), Effect.provide(slots))

      const asked = join(dataDir, "worktrees", "app", "app-1")
      assert.strictEqual(record.workspacePath, `${asked}-there`)
      assert.deepStrictEqual(record.runtime, { plugin: "remote-tmux", id: "app-1", data: { host: "b" } })
      assert.notProperty(record, "spawn")
      // Journaled before the start (where it was asked for), then where the host made it; the record follows.
      assert.deepStrictEqual(
        writes.filter((w) => w.spawn !== undefined).map((w) => [w.spawn!.workspace, w.spawn!.createdBranch, w.workspacePath]),
        [
          [undefined, undefined, asked],
          [asked, false, asked],
          [asked, true, asked],
          [`${asked}-there`, true, asked],
          [`${asked}-there`, true, `${asked}-there`]
        ]
      )
    }))
})
