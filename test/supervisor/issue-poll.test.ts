/**
 * The supervisor's tracker poll: a session whose Linear issue is completed is cleaned up like one whose PR
 * merged. The runtime is a plugin module that runs nothing; Linear is the local one.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { ProjectPlugins } from "../../src/plugins/ProjectPlugins.ts"
import { SessionManager } from "../../src/sessions/SessionManager.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"
import { linearServer } from "../support/linear-server.ts"
import { drivenSupervisor } from "../support/supervisor.ts"

describe("supervisor: issues completed in the tracker", () => {
  it.live("pollIssues cleans up the sessions whose issue is done, in one request per project", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      process.env.FIXTURE_RUNTIME_LOG = join(root, "runtime-log.json")
      const linear = yield* linearServer({
        apiKey: "key",
        teams: [{ id: "t-eng", key: "ENG" }],
        issues: [{ identifier: "ENG-1", title: "One" }, { identifier: "ENG-2", title: "Two" }]
      })
      const config = yield* validateConfig({
        plugins: { "fixture-runtime": { path: resolve("test/fixtures/plugins/fixture-runtime.mjs") } },
        projects: {
          app: {
            repo: "acme/app",
            path: join(root, "app"),
            runtime: "fixture-runtime",
            agent: "command",
            agentConfig: { command: "true" },
            tracker: { plugin: "tracker-b", teamId: "ENG", apiKey: "key", apiUrl: linear.url }
          }
        }
      }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
      const store = SessionStore.make(root)
      const events = yield* EventLog.make(join(root, "events.jsonl"))
      for (const n of [1, 2]) {
        const record: SessionRecord = {
          sessionId: `app-${n}`,
          projectId: "app",
          issueId: `ENG-${n}`,
          status: "working",
          activity: "active",
          branch: `feat/ENG-${n}`,
          workspacePath: join(root, `w${n}`),
          runtime: { plugin: "fixture-runtime", id: `fx-app-${n}`, data: {} },
          agent: { plugin: "command" },
          pr: null,
          createdAt: "2026-01-01T00:00:00.000Z",
          updatedAt: "2026-01-01T00:00:00.000Z"
        }
        yield* store.write(record)
      }
      const context = yield* Layer.build(
        Layer.mergeAll(NotifierRouter.layer(new Map(), { urgent: [], action: [], warning: [], info: [] }), SessionManager.layerNoDeps(config)).pipe(
          Layer.provideMerge(ProjectPlugins.layer({ supervisor: true })),
          Layer.provideMerge(Layer.mergeAll(Layer.succeed(SessionStore, store), Layer.succeed(EventLog, events))),
          Layer.provideMerge(NodeServices.layer)
        )
      )
      const supervisor = yield* drivenSupervisor.pipe(Effect.provide(context))
      const status = (id: string) => JSON.parse(readFileSync(store.paths.record("app", id), "utf8")).status

      yield* supervisor.pollIssues()
      assert.deepStrictEqual([status("app-1"), status("app-2")], ["working", "working"])
      assert.strictEqual(linear.requests.length, 1)

      linear.setState("ENG-2", { name: "Canceled", type: "canceled" })
      yield* supervisor.pollIssues()
      assert.deepStrictEqual([status("app-1"), status("app-2")], ["working", "done"])
      const cleaned = readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line)).find((e) => e.type === "session.cleaned")
      assert.deepInclude(cleaned, { sessionId: "app-2", message: "issue ENG-2 is Canceled" })
      assert.deepInclude(JSON.parse(readFileSync(join(root, "runtime-log.json"), "utf8")), { call: "destroy", id: "fx-app-2" })
      assert.isTrue(linear.requests.every((r) => r.status === 200))
    }))
})
