/**
 * The supervisor's tracker poll: a session whose Linear issue is completed is cleaned up like one whose PR
 * merged. The runtime is the in-memory one (orch/testing); Linear is the local one.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { makeTestNotifier, makeTestRuntime } from "../../src/testing/index.ts"
import { tempDir, withHost } from "../support/host.ts"
import { linearServer } from "../support/linear-server.ts"
import { drivenSupervisorOn, routedTo } from "../support/supervisor.ts"

describe("supervisor: issues completed in the tracker", () => {
  it.live("pollIssues cleans up the sessions whose issue is done, in one request per project", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const linear = yield* linearServer({
        apiKey: "key",
        teams: [{ id: "t-eng", key: "ENG" }],
        issues: [{ identifier: "ENG-1", title: "One" }, { identifier: "ENG-2", title: "Two" }]
      })
      const config = yield* validateConfig({
        projects: {
          app: {
            repo: "acme/app",
            path: join(root, "app"),
            agent: "command",
            agentConfig: { command: "true" },
            tracker: { plugin: "tracker-b", teamId: "ENG", apiKey: "key", apiUrl: linear.url }
          }
        }
      }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
      const store = SessionStore.make(root)
      const events = yield* EventLog.make(join(root, "events.jsonl"))
      const runtime = makeTestRuntime()
      for (const n of [1, 2]) {
        const workspacePath = join(root, `w${n}`)
        const handle = yield* runtime.create({ sessionId: `app-${n}`, workingDir: workspacePath, command: "true", env: {}, unsetEnv: [] })
        const record: SessionRecord = {
          sessionId: `app-${n}`,
          projectId: "app",
          issueId: `ENG-${n}`,
          status: "working",
          activity: "active",
          branch: `feat/ENG-${n}`,
          workspacePath,
          runtime: handle,
          agent: { plugin: "command" },
          pr: null,
          createdAt: "2026-01-01T00:00:00.000Z",
          updatedAt: "2026-01-01T00:00:00.000Z"
        }
        yield* store.write(record)
      }
      const supervisor = yield* drivenSupervisorOn({
        config,
        store,
        events,
        replace: { runtime: Runtime.layerTest(runtime) },
        notifiers: new Map([["rec", makeTestNotifier("rec")]]),
        routing: routedTo("rec")
      })
      const status = (id: string) => JSON.parse(readFileSync(store.paths.record("app", id), "utf8")).status

      yield* supervisor.pollIssues()
      assert.deepStrictEqual([status("app-1"), status("app-2")], ["working", "working"])
      assert.strictEqual(linear.requests.length, 1)

      linear.setState("ENG-2", { name: "Canceled", type: "canceled" })
      yield* supervisor.pollIssues()
      assert.deepStrictEqual([status("app-1"), status("app-2")], ["working", "done"])
      const cleaned = readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line)).find((e) => e.type === "session.cleaned")
      assert.deepInclude(cleaned, { sessionId: "app-2", message: "issue ENG-2 is Canceled" })
      assert.deepStrictEqual([...runtime.terminals.keys()], ["app-1"], "app-2's terminal was destroyed, app-1's left alone")
      assert.isTrue(linear.requests.every((r) => r.status === 200))
    }))
})
