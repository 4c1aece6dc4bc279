/**
 * orch composed from a config file with a program's own Layers (actors/composition.ts, `Orch.layer`): the names the
 * file gives them are the program's, at the start and at every reload of the file, which checks the file, builds the
 * plugins of the projects it adds and the notifiers of its routing again. Real file watch and clock; the receipts
 * are the event log's `config.*` events and the program's own plugins' records.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { orchLayer } from "../../actors/composition.ts"
import { loadConfig } from "../../src/config/load.ts"
import { Agent, makeTestAgent } from "../../src/plugins/agent/Agent.ts"
import { makeTestNotifier, Notifier } from "../../src/plugins/notifier/Notifier.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { makeTestWorkspace, Workspace } from "../../src/plugins/workspace/Workspace.ts"
import { SessionManager } from "../../src/sessions/SessionManager.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { tempDir, withHost } from "../support/host.ts"

const project = (root: string, name: string) => ({
  repo: `acme/${name}`,
  path: join(root, name),
  agent: "my-agent",
  runtime: "memory",
  workspace: "memory",
  tracker: { plugin: "none" },
  scm: { plugin: "none" }
})
const routing = (urgent: ReadonlyArray<string>, action: ReadonlyArray<string>) => ({ urgent, action, warning: ["hosted"], info: ["hosted"] })

describe("Orch.layer from a config file, with the program's own Layers", () => {
  it.live("the file's names for them hold at the start and through a reload that adds a project and routes more to them", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const file = join(root, "orchestrator.yaml")
      const write = (projects: Record<string, unknown>, notificationRouting: unknown) =>
        writeFileSync(file, stringify({ notifiers: { oncall: { plugin: "pager" } }, notificationRouting, projects }))
      write({ app: project(root, "app") }, routing(["oncall"], ["hosted"]))
      const host = withHost({ cwd: root, homeDir: root, env: { ORCH_HOME: join(root, "data") } })
      const config = yield* loadConfig(file).pipe(host)
      const agent = makeTestAgent()
      const pagers: Array<string> = []
      const context = yield* Layer.build(orchLayer(config, {
        register: {
          agent: { "my-agent": Layer.succeed(Agent, agent) },
          runtime: { memory: Layer.succeed(Runtime, makeTestRuntime()) },
          workspace: { memory: Layer.succeed(Workspace, makeTestWorkspace()) },
          notifier: {
            pager: ({ name }) => Layer.effect(Notifier, Effect.sync(() => (pagers.push(name), makeTestNotifier(name))))
          }
        }
      })).pipe(host)
      assert.deepStrictEqual(pagers, ["oncall"], "built with the router")
      const events = Context.get(context, EventLog)
      const verdict = yield* events.stream.pipe(
        Stream.filter((event) => event.type === "config.applied" || event.type === "config.rejected"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )

      write({ app: project(root, "app"), web: project(root, "web") }, routing(["oncall"], ["oncall"]))
      const seen = yield* Fiber.join(verdict).pipe(Effect.timeout("20 seconds"))
      assert.strictEqual(seen._tag, "Some")
      const event = seen._tag === "Some" ? seen.value : undefined
      assert.deepStrictEqual([event?.type, event?.message], ["config.applied", "projects added: web; notificationRouting changed"])
      assert.deepStrictEqual(pagers, ["oncall", "oncall"], "the reload built the notifiers again, the program's with them")

      const { record } = yield* Context.get(context, SessionManager).spawn("web", { _tag: "Issue", issue: "3" })
      assert.strictEqual(record.projectId, "web")
      assert.deepStrictEqual(agent.launches.map((launched) => [launched.project.id, launched.issueId]), [["web", "3"]])
    }), 60_000)
})
