/**
 * The built-in plugins as plugin modules (src/plugins/modules, `orch/plugins/<slot>/<name>`): each checks its
 * settings at `create`, and its component works through orch's own plugin-module adapters, as a module a config
 * names by package would.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { ProjectConfig } from "../../src/config/schema.ts"
import { agentFromPlugin, runtimeFromPlugin, scmFromPlugin, trackerFromPlugin } from "../../src/plugins/adapters.ts"
import * as aider from "../../src/plugins/modules/agent/aider.ts"
import * as codingAgent from "../../src/plugins/modules/agent/coding-agent.ts"
import * as command from "../../src/plugins/modules/agent/command.ts"
import * as multiplexer from "../../src/plugins/modules/runtime/multiplexer.ts"
import * as scmRepohost from "../../src/plugins/modules/scm/repohost.ts"
import * as trackerRepohost from "../../src/plugins/modules/tracker/repohost.ts"
import * as trackerB from "../../src/plugins/modules/tracker/tracker-b.ts"
import { tempDir } from "../support/host.ts"
import { issuesServer } from "../support/issues-server.ts"
import { privateTmux } from "../support/tmux.ts"
import { closedPort } from "./notifier/http-target.ts"

const loaded = (module: { manifest: { name: string; slot: string; description: string; version: string } }, component: object) => ({
  manifest: module.manifest as never,
  component: component as Record<string, unknown>
})

/** The synchronous throw of `f`, as `{ _tag, message }`. */
const thrown = (f: () => unknown) => {
  try {
    f()
  } catch (error) {
    return { error: error instanceof Error, _tag: (error as { _tag?: string })._tag, message: (error as Error).message }
  }
  return "no error"
}

const context = {
  sessionId: "app-1",
  project: { key: "app", id: "app", path: "/src/app", repo: "acme/app", defaultBranch: "main" } as unknown as ProjectConfig,
  issueId: "7",
  branch: "feat/7",
  workspacePath: "/w/app-1",
  promptFile: "/d/prompt.md",
  systemPromptFile: "/d/system.md",
  task: "Fix issue 7",
  activityFile: "/d/activity.jsonl",
  conversationId: "c-1"
}

describe("built-in plugin modules", () => {
  it("every module's manifest names the slot and name of its path, with the package's version", async () => {
    const version = JSON.parse(readFileSync("package.json", "utf8")).version
    const files = readdirSync("src/plugins/modules", { recursive: true }).map(String).filter((f) => f.endsWith(".ts")).sort()
    assert.deepStrictEqual(files, [
      "agent/aider.ts",
      "agent/codex.ts",
      "agent/coding-agent.ts",
      "agent/command.ts",
      "notifier/chat.ts",
      "notifier/desktop.ts",
      "notifier/email.ts",
      "notifier/hosted.ts",
      "notifier/webhook.ts",
      "runtime/multiplexer.ts",
      "scm/repohost.ts",
      "tracker/repohost.ts",
      "tracker/tracker-b.ts"
    ])
    for (const file of files) {
      const module = await import(`../../src/plugins/modules/${file}`)
      const [slot, name] = file.slice(0, -3).split("/")
      assert.deepInclude(module.manifest, { name, slot, version }, file)
      assert.isString(module.manifest.description, file)
      assert.isFunction(module.create, file)
    }
  })

  it.effect("agent command: launch and resume through orch's adapter; a context without its fields is refused", () =>
    Effect.gen(function*() {
      const agent = agentFromPlugin(loaded(command, command.create({ command: "my-agent --go" })))
      assert.deepStrictEqual(yield* agent.launch(context), { command: "my-agent --go", env: {} })
      assert.deepStrictEqual(yield* agent.resume(context), { command: "my-agent --go", env: {} })
      const error = yield* Effect.flip(Effect.tryPromise({
        try: () => command.create({ command: "x" }).launch({ sessionId: "app-1" } as never),
        catch: (cause) => cause as Error & { readonly _tag: string }
      }))
      assert.strictEqual(error._tag, "AgentError")
      assert.include(error.message, "agent command: the context is not valid: project: Missing key")
      const unset = yield* Effect.flip(agentFromPlugin(loaded(command, command.create())).launch(context))
      assert.strictEqual(
        unset.message,
        "agent command: launch failed: agent command: set agentConfig.command to the command line the agent runs (agent `command` runs any command line, so it needs one)"
      )
    }))

  it.effect("agent coding-agent as a module: its launch makes its hooks on the calling machine, as before, and answers without files", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const workspacePath = join(dir, "w")
      mkdirSync(workspacePath)
      const launch = yield* Effect.promise(() => codingAgent.create({}).launch({ ...context, workspacePath, activityFile: join(dir, "activity.jsonl") }))
      assert.notProperty(launch, "files")
      assert.include(launch.command, "--session-id c-1")
      const settings = JSON.parse(readFileSync(join(workspacePath, ".claude", "settings.local.json"), "utf8"))
      assert.include(settings.hooks.Stop[0].hooks[0].command, `>> '${join(dir, "activity.jsonl")}'`)
    }).pipe(Effect.scoped))

  it.effect("agent aider: its flags from agentConfig, its screen read", () =>
    Effect.gen(function*() {
      const component = aider.create({ permissions: "skip", model: "sonnet" })
      assert.deepStrictEqual(yield* agentFromPlugin(loaded(aider, component)).launch(context), {
        command: "aider --yes-always --model 'sonnet' --read '/d/system.md'",
        env: {},
        initialMessage: "Fix issue 7"
      })
      assert.strictEqual(component.activityFromScreen("Apply edit? (Y)es/(N)o"), "waiting_input")
      assert.deepStrictEqual(thrown(() => aider.create(42 as never)), {
        error: true,
        _tag: "PluginConfigError",
        message: "aider: Expected object, got 42"
      })
    }))

  it.live("runtime multiplexer: a tmux session through orch's adapter: create, send, screen, alive, a viewer's terminal, destroy", () =>
    Effect.gen(function*() {
      const { socket } = yield* privateTmux
      const dir = yield* tempDir()
      const runtime = runtimeFromPlugin(loaded(multiplexer, multiplexer.create({ socket })))
      const handle = yield* runtime.create({
        sessionId: "mod-1",
        workingDir: dir,
        command: `printf 'ready\\n'; while IFS= read -r line; do printf 'got: %s\\n' "$line"; done`,
        env: {},
        unsetEnv: []
      })
      assert.deepInclude(handle, { plugin: "multiplexer", id: "mod-1" })
      assert.strictEqual(handle.data.socket, socket)
      assert.isNumber(handle.data.pid)
      yield* runtime.send(handle, "hello")
      yield* runtime.capture(handle).pipe(
        Effect.filterOrFail((screen) => screen.includes("got: hello"), () => "not yet"),
        Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 100 })
      )
      assert.deepStrictEqual([...(yield* runtime.probe([handle]))], [["mod-1", { _tag: "Alive" }]])
      // The dashboard's terminal, through the module's `attach`: the screen drawn for the viewer, its typing reaching the agent.
      assert.isFunction(runtime.attach)
      yield* Effect.scoped(Effect.gen(function*() {
        const terminal = yield* runtime.attach!(handle, { cols: 100, rows: 30 }, { readOnly: false })
        let seen = ""
        yield* terminal.output.pipe(Stream.takeUntil((chunk) => (seen += chunk).includes("got: hello")), Stream.runDrain)
        yield* terminal.write("from the viewer\r")
        yield* runtime.capture(handle).pipe(
          Effect.filterOrFail((screen) => screen.includes("got: from the viewer"), () => "not yet"),
          Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 100 })
        )
      }))
      yield* runtime.destroy(handle)
      assert.deepStrictEqual([...(yield* runtime.probe([handle]))], [["mod-1", { _tag: "Gone" }]])
      assert.deepStrictEqual(thrown(() => multiplexer.create({ socket: 7 } as never)), {
        error: true,
        _tag: "PluginConfigError",
        message: "multiplexer: socket: Expected string, got 7"
      })
    }))

  it.live("tracker repohost: needs repo; an issue, and null for none, through orch's adapter", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(thrown(() => trackerRepohost.create({} as never)), {
        error: true,
        _tag: "PluginConfigError",
        message: "repohost: repo: Missing key"
      })
      const server = yield* issuesServer("acme/app", { "7": { title: "Fix the login", body: "It fails", labels: ["bug"] } })
      const component = trackerRepohost.create({ repo: "acme/app", apiUrl: server.url, token: "t" })
      assert.strictEqual(yield* Effect.promise(() => component.getIssue("8")), null)
      const tracker = trackerFromPlugin(loaded(trackerRepohost, component))
      assert.deepInclude(yield* tracker.getIssue("7"), { id: "7", title: "Fix the login", body: "It fails", labels: ["bug"] })
      assert.strictEqual((yield* Effect.flip(tracker.getIssue("8")))._tag, "IssueNotFound")
    }))

  it.effect("tracker tracker-b: a bad setting throws at create, naming the key", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(thrown(() => trackerB.create({ teamId: "ENG" } as never)), {
        error: true,
        _tag: "PluginConfigError",
        message: "tracker-b.apiKey: required: a Linear API key, from the environment (apiKey: ${LINEAR_API_KEY})"
      })
      assert.strictEqual(trackerB.create({ teamId: "ENG", apiKey: "k" }).namesBranches, true)
    }))

  it.live("scm repohost: needs repo and a known mergeMethod; an unreachable API is a tagged error through orch's adapter", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(thrown(() => scmRepohost.create({ repo: "acme" })), {
        error: true,
        _tag: "PluginConfigError",
        message: "repohost: repo: Expected \"owner/repo\""
      })
      assert.strictEqual(
        (thrown(() => scmRepohost.create({ repo: "acme/app", mergeMethod: "ff" as never })) as { message: string }).message,
        "repohost: mergeMethod: Expected \"squash\" | \"merge\" | \"rebase\", got \"ff\""
      )
      const port = yield* closedPort
      const scm = scmFromPlugin(loaded(scmRepohost, scmRepohost.create({ repo: "acme/app", apiUrl: `http://127.0.0.1:${port}`, token: "t" })))
      const error = yield* Effect.flip(scm.observe("feat/7"))
      assert.strictEqual(error._tag, "ScmError")
      assert.match(error.message, /^repohost: observe failed: /)
    }))
})
