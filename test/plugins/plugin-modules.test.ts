import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"

const fixture = (name: string) => resolve("test/fixtures/plugins", name)

describe("plugin modules (manifest + create)", () => {
  it.live("a tracker from `path`, an agent whose methods return Effects, a runtime whose methods return Promises", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({
        config: { plugins: { "fixture-agent": { path: fixture("fixture-agent.mjs") }, "fixture-runtime": { path: fixture("fixture-runtime.mjs") } } },
        project: {
          agent: "fixture-agent",
          agentConfig: { greeting: "hello" },
          tracker: { plugin: "fixture-tracker", path: fixture("fixture-tracker.mjs"), body: "from the fixture" }
        }
      })
      const spawned = yield* s.orch(["spawn", "app", "7"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      yield* eventually("the fixture agent", () => s.screen("app-1").includes("fixture agent hello app-1 on feat/7"))
      assert.include(readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8"), "Fixture issue 7")
      assert.include(readFileSync(join(s.dataDir, "sessions", "app", "app-1", "prompt.md"), "utf8"), "from the fixture")
      assert.strictEqual((yield* s.orch(["spawn", "app", "404"])).stderr, "orch: issue 404 not found in fixture-tracker\n")

      const log = join(s.root, "runtime-log.json")
      s.writeConfig({ runtime: "fixture-runtime", tracker: { plugin: "fixture-tracker", path: fixture("fixture-tracker.mjs") } })
      const viaRuntime = yield* s.orch(["spawn", "app", "8"], { FIXTURE_RUNTIME_LOG: log })
      assert.strictEqual(viaRuntime.code, 0, viaRuntime.stderr)
      const id = viaRuntime.stdout.trim()
      assert.deepStrictEqual(s.record(id).runtime, { plugin: "fixture-runtime", id: `fx-${id}`, data: { n: 1 } })
      assert.strictEqual((yield* s.orch(["send", id, "hi"], { FIXTURE_RUNTIME_LOG: log })).code, 0)
      assert.strictEqual((yield* s.orch(["session", "kill", id], { FIXTURE_RUNTIME_LOG: log })).code, 0)
      const calls = JSON.parse(readFileSync(log, "utf8")).map((entry: { call: string }) => entry.call)
      assert.deepStrictEqual(calls, ["create", "sendCommand", "destroy"])
    }))

  it.live.each(
    [
      [{ path: "test/fixtures/plugins/no-manifest.mjs" }, "exports no `manifest`"],
      [{ path: "test/fixtures/plugins/wrong-slot.mjs" }, "is a notifier plugin, but the config uses it as the agent"],
      [{ path: "test/fixtures/plugins/throws-on-import.mjs" }, "throws on import: boom at import"],
      [{ path: "test/fixtures/plugins/fixture-tracker.mjs" }, "is a tracker plugin, but the config uses it as the agent"],
      [{ path: "test/fixtures/plugins/missing.mjs" }, "throws on import"],
      [{ package: "orch-plugin-that-does-not-exist" }, "cannot be found"]
    ] as const
  )("a bad module is a configuration error naming it: %j", ([module, reason]) =>
    Effect.gen(function*() {
      const source = "path" in module ? { path: resolve(module.path) } : module
      const s = yield* sandbox({ config: { plugins: { custom: source } }, project: { agent: "custom" } })
      const run = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(run.code, 2)
      // Checked before anything is done, as `orch config validate` checks it: where the module is named, and why.
      const key = "path" in module ? "path" : "package"
      assert.match(
        run.stderr,
        new RegExp(
          `^orch: Validation error at "plugins\\.custom\\.${key}": plugin module ${
            ("path" in module ? resolve(module.path) : module.package).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
          }: .+ \\(${s.config.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+\\)\\n$`
        )
      )
      assert.include(run.stderr, reason)
      assert.deepStrictEqual(s.sessions(), [])
    }))

  it.live("a manifest name that is not the configured name is refused", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ config: { plugins: { "my-agent": { path: fixture("fixture-agent.mjs") } } }, project: { agent: "my-agent" } })
      const run = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(run.code, 2)
      assert.include(run.stderr, "its manifest is named \"fixture-agent\", but the config calls it \"my-agent\"")
    }))

  it.live("an unknown plugin name lists the known ones, with the nearest, where it is written", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { agent: "claud" } })
      const run = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(run.code, 2)
      const line = readFileSync(s.config, "utf8").split("\n").findIndex((text) => text.includes("agent: claud")) + 1
      assert.strictEqual(
        run.stderr,
        `orch: Validation error at "projects.app.agent": Unknown agent plugin "claud" (did you mean "coding-agent", which runs claude?): ` +
          `the built-in ones are coding-agent, codex, aider and command; another one is a plugin module, named under \`plugins\` (${s.config}:${line}:5)\n`
      )
      assert.deepStrictEqual(s.sessions(), [])
    }))

  it.live("a built-in plugin refuses a bad setting when it is created, naming the key", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { scm: { plugin: "repohost", mergeMethod: "fast-forward" } } })
      const run = yield* s.orch(["spawn", "app", "1"])
      assert.strictEqual(run.code, 2)
      const line = readFileSync(s.config, "utf8").split("\n").findIndex((text) => text.includes("mergeMethod")) + 1
      assert.strictEqual(
        run.stderr,
        `orch: Validation error at "projects.app.scm.mergeMethod": must be squash, merge or rebase, not "fast-forward" (${s.config}:${line}:7)\n`
      )
    }))
})
