/**
 * A program's own Layers for the slots (src/plugins/layers.ts, `Orch.layer`'s `replace` and `register`): a project
 * gets the Layer registered under the name its config uses, and every project the one that replaces a slot; a
 * notifier whose plugin is a registered name gets that Layer, answering to its own name. Names not registered are
 * resolved as always; a Layer that fails is the plugin that cannot be created, said in one sentence.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { Notification } from "../../src/domain/notification.ts"
import { Agent, makeTestAgent } from "../../src/plugins/agent/Agent.ts"
import { closeLayers, PluginLayers, type PluginLayersSpec, unusedRegistrations } from "../../src/plugins/layers.ts"
import { makeTestNotifier, Notifier } from "../../src/plugins/notifier/Notifier.ts"
import { buildNotifiers } from "../../src/plugins/notifier/registry.ts"
import { ProjectPlugins } from "../../src/plugins/ProjectPlugins.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { makeInbox } from "../../src/store/Inbox.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"

const setup = Effect.gen(function*() {
  const root = yield* tempDir()
  const host = withHost({ cwd: root, homeDir: root, env: {} })
  const config = yield* validateConfig({
    notifiers: { oncall: { plugin: "pager", channel: "#ops" }, mail: { plugin: "pager" } },
    notificationRouting: { urgent: ["oncall"], action: ["mail"], warning: ["hosted"], info: ["hosted"] },
    projects: {
      mine: { repo: "acme/mine", path: join(root, "mine"), agent: "my-agent", runtime: "process", tracker: { plugin: "none" }, scm: { plugin: "none" } },
      theirs: {
        repo: "acme/theirs",
        path: join(root, "theirs"),
        agent: "command",
        agentConfig: { command: "true" },
        runtime: "process",
        tracker: { plugin: "none" },
        scm: { plugin: "none" }
      }
    }
  }).pipe(host)
  /** The plugins of each project with `spec` in force, as the composition provides it. */
  const plugins = (spec: PluginLayersSpec) =>
    Effect.gen(function*() {
      const layers = closeLayers(spec, Context.empty(), yield* Effect.scope)
      const context = yield* Layer.build(
        ProjectPlugins.layer({ supervisor: true }).pipe(
          Layer.provide(Layer.succeed(SessionStore, SessionStore.make(root))),
          Layer.provide(NodeServices.layer),
          Layer.provide(Layer.succeed(PluginLayers, layers))
        )
      ).pipe(host)
      const projectPlugins = Context.get(context, ProjectPlugins)
      return (key: string) => Effect.scoped(projectPlugins.of(config, config.projects[key]!)).pipe(host)
    })
  return { root, host, config, plugins }
})

describe("a program's own Layers in the plugin slots", () => {
  it.effect("a project gets the Layer registered under the name its config uses; another project the built-in it names", () =>
    Effect.gen(function*() {
      const { plugins } = yield* setup
      const agent = makeTestAgent()
      const of = yield* plugins({ register: { agent: { "my-agent": Layer.succeed(Agent, agent) } } })
      assert.strictEqual((yield* of("mine")).agent, agent)
      assert.strictEqual((yield* of("theirs")).agent.name, "command")
      assert.strictEqual((yield* of("mine")).runtime.name, "process", "slots it registered nothing for are the config's")
    }))

  it.effect("a replacement is every project's, whatever it names; a function makes one for each project from its config", () =>
    Effect.gen(function*() {
      const { plugins } = yield* setup
      const runtime = makeTestRuntime()
      const of = yield* plugins({
        replace: { runtime: Layer.succeed(Runtime, runtime), agent: (project) => Layer.succeed(Agent, { ...makeTestAgent(), name: `agent of ${project.id}` }) },
        register: { agent: { "my-agent": Layer.succeed(Agent, makeTestAgent()) } }
      })
      const [mine, theirs] = [yield* of("mine"), yield* of("theirs")]
      assert.strictEqual(mine.runtime, runtime)
      assert.strictEqual(theirs.runtime, runtime)
      assert.deepStrictEqual([mine.agent.name, theirs.agent.name], ["agent of mine", "agent of theirs"], "a replaced slot is replaced, registered or not")
      assert.strictEqual(Context.get(mine.context, Runtime), runtime, "the procedures' services are the same")
    }))

  it.effect("a Layer that fails is the project's plugin that cannot be created, said where the config names it", () =>
    Effect.gen(function*() {
      const { plugins } = yield* setup
      const of = yield* plugins({ register: { agent: { "my-agent": Layer.effect(Agent, Effect.fail(new Error("no licence for my-agent\nat line 2"))) } } })
      const failure = yield* Effect.flip(of("mine"))
      assert.strictEqual(failure._tag, "PluginConfigError")
      assert.strictEqual(failure.message, "projects.mine.agent: the agent Layer registered as \"my-agent\" could not be built: no licence for my-agent")
      assert.strictEqual((yield* of("theirs")).agent.name, "command", "the other project is unaffected")
    }))

  it.effect("a Layer whose service lacks what its slot's Shape must have (a plain-JavaScript program's) is a plugin that cannot be created, saying what", () =>
    Effect.gen(function*() {
      const { plugins } = yield* setup
      // As a program in plain JavaScript may give it: the compiler never saw it.
      const wrong = { name: "my-agent", launch: () => Effect.succeed({ command: 42 }), readsScreen: "yes" } as unknown as ReturnType<typeof makeTestAgent>
      const of = yield* plugins({ register: { agent: { "my-agent": Layer.succeed(Agent, wrong) } } })
      const failure = yield* Effect.flip(of("mine"))
      assert.strictEqual(
        failure.message,
        "projects.mine.agent: the agent Layer registered as \"my-agent\" could not be built: what it gives is not an agent: no `resume`, no `isReadyForInput`, `readsScreen` is a string, not a boolean, no `activityFromScreen`"
      )
    }))

  it.effect("a Layer that needs a service nobody provides (plain JavaScript has no compiler to say so) cannot be built, saying which", () =>
    Effect.gen(function*() {
      const { plugins } = yield* setup
      class Settings extends Context.Service<Settings, { readonly key: string }>()("me/Settings") {}
      const needy = Layer.effect(
        Agent,
        Effect.gen(function*() {
          yield* Settings
          return makeTestAgent()
        })
      ) as unknown as Layer.Layer<Agent>
      const of = yield* plugins({ register: { agent: { "my-agent": needy } } })
      const failure = yield* Effect.flip(of("mine"))
      assert.strictEqual(failure._tag, "PluginConfigError")
      assert.match(failure.message, /^projects\.mine\.agent: the agent Layer registered as "my-agent" could not be built: .*me\/Settings/)
    }))

  it.effect("a name registered with a typo: the project's name is unknown, and the message names the registered one", () =>
    Effect.gen(function*() {
      const { plugins } = yield* setup
      const of = yield* plugins({ register: { agent: { my_agent: Layer.succeed(Agent, makeTestAgent()) } } })
      const failure = yield* Effect.flip(of("mine"))
      assert.strictEqual(failure._tag, "UnknownPlugin")
      assert.include(failure.message, `Unknown agent plugin "my-agent" (did you mean "my_agent"?)`)
      assert.include(failure.message, "; Layers the program registered for it: my_agent")
    }))

  it.effect("Layers registered under names the config does not use are said, one line each; built-ins' names are overrides", () =>
    Effect.gen(function*() {
      const { config } = yield* setup
      const lines = unusedRegistrations(config, {
        register: {
          agent: {
            "my-agent": Layer.succeed(Agent, makeTestAgent()),
            "their-agent": Layer.succeed(Agent, makeTestAgent()),
            codex: Layer.succeed(Agent, makeTestAgent())
          },
          notifier: { pager: Layer.succeed(Notifier, makeTestNotifier()), sms: Layer.succeed(Notifier, makeTestNotifier()) }
        }
      })
      assert.deepStrictEqual(lines, [
        "the agent Layer registered as \"their-agent\" is used by no project of the config (they use my-agent, command): name it in the config (`agent: their-agent`) for it to be used",
        "the notifier Layer registered as \"sms\" is used by no notifier of the config (they use pager): name it in the config (`plugin: sms`) for it to be used"
      ])
    }))

  it.effect("a notifier whose plugin is a registered name gets the Layer, under its own name, with its settings; the others are the config's", () =>
    Effect.gen(function*() {
      const { root, host, config } = yield* setup
      const received: Array<[string, Notification]> = []
      const settings: Array<unknown> = []
      const pager = ({ name, settings: entry }: { readonly name: string; readonly settings: unknown }) => {
        settings.push(entry)
        const recorder = makeTestNotifier(name)
        return Layer.succeed(Notifier, { ...recorder, notify: (n: Notification) => Effect.sync(() => void received.push([name, n])) })
      }
      const notifiers = yield* buildNotifiers(config, makeInbox(root)).pipe(
        Effect.provideService(PluginLayers, closeLayers({ register: { notifier: { pager } } }, Context.empty(), yield* Effect.scope)),
        Effect.provide(NodeServices.layer),
        host
      )
      assert.deepStrictEqual([...notifiers.keys()].sort(), ["hosted", "mail", "oncall"])
      assert.deepStrictEqual([notifiers.get("oncall")!.name, notifiers.get("mail")!.name, notifiers.get("hosted")!.name], ["oncall", "mail", "hosted"])
      assert.deepStrictEqual(settings, [{ plugin: "pager", channel: "#ops" }, { plugin: "pager" }])
      const notification: Notification = { id: "n", type: "t", priority: "urgent", title: "T", message: "M", timestamp: "2026-01-01T00:00:00.000Z" }
      yield* notifiers.get("oncall")!.notify(notification)
      assert.deepStrictEqual(received, [["oncall", notification]])
    }))

  it.effect("a notifier Layer that fails says which notifier and why", () =>
    Effect.gen(function*() {
      const { root, host, config } = yield* setup
      const failure = yield* buildNotifiers(config, makeInbox(root)).pipe(
        Effect.provideService(
          PluginLayers,
          closeLayers({ replace: { notifier: Layer.effect(Notifier, Effect.fail("the pager service refused the key")) } }, Context.empty(), yield* Effect.scope)
        ),
        Effect.provide(NodeServices.layer),
        host,
        Effect.flip
      )
      assert.strictEqual(failure.message, "notifier hosted: the notifier Layer given for every notifier could not be built: the pager service refused the key")
    }))
})
