/**
 * ProjectPlugins: each project's plugins built once per config and owned by the service's layer; a reload builds
 * first and swaps after; what plugins share (the `process` runtime's terminals, the repohost gateways) is the
 * service's, so it outlives a project's plugins being made again.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { configChange } from "../../src/config/change.ts"
import { validateConfig } from "../../src/config/validate.ts"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { type BuildPlugins, ProjectPlugins, RETIRE_CONNECTIONS_AFTER } from "../../src/plugins/ProjectPlugins.ts"
import { projectPlugins } from "../../src/plugins/registry.ts"
import { Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"
import { makeRepo } from "../support/repo.ts"

const setup = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const host = withHost({ cwd: root, homeDir: root, env })
    const project = (name: string, rest: Record<string, unknown> = {}) => ({
      repo: `acme/${name}`,
      path: join(root, name),
      runtime: "process",
      agent: "command",
      agentConfig: { command: `echo ${name}` },
      tracker: { plugin: "none" },
      ...rest
    })
    const load = (projects: Record<string, unknown>, hosts: Record<string, unknown> = {}) => validateConfig({ projects, hosts }).pipe(host)
    /** Builds `layer` in a scope the test closes (or the test's own scope does). */
    const build = (layer: Layer.Layer<ProjectPlugins, never, SessionStore | NodeServices.NodeServices>) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
        const context = yield* Layer.buildWithScope(
          layer.pipe(Layer.provide(Layer.succeed(SessionStore, SessionStore.make(root))), Layer.provide(NodeServices.layer)),
          scope
        ).pipe(host)
        return { plugins: Context.get(context, ProjectPlugins), close: Scope.close(scope, Exit.void) }
      })
    return { root, host, project, load, build }
  })

/** The registry's plugins, with a log of each build of a project's plugins and of its closing. */
const logged = (log: Array<string>): BuildPlugins => (config, project, resources) => {
  const name = `${project.id} (${project.agentConfig.command})`
  return Layer.merge(
    projectPlugins(config, project, resources),
    Layer.effectDiscard(Effect.acquireRelease(Effect.sync(() => log.push(`built ${name}`)), () => Effect.sync(() => log.push(`closed ${name}`))))
  )
}

describe("ProjectPlugins", () => {
  it.live("builds a project's plugins once per config; a reload builds first, a failed one changes nothing, its commit closes the replaced", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      const log: Array<string> = []
      const { plugins } = yield* t.build(ProjectPlugins.layerWith(logged(log), { supervisor: false }))
      const first = yield* t.load({ app: t.project("app"), web: t.project("web") })
      const app = yield* Effect.scoped(plugins.of(first, first.projects.app!))
      assert.strictEqual(yield* Effect.scoped(plugins.of(first, first.projects.app!)), app, "the same plugins, not built again")
      assert.strictEqual(yield* Runtime.use(Effect.succeed).pipe(plugins.provide(first, first.projects.app!)), app.runtime, "procedures get the same ones")
      yield* Effect.scoped(plugins.of(first, first.projects.web!))
      assert.deepStrictEqual(log, ["built app (echo app)", "built web (echo web)"])

      // app changed, web removed, api added with an agent no one has: nothing is put in force or closed.
      const broken = yield* t.load({ app: t.project("app", { agentConfig: { command: "echo two" } }), api: t.project("api", { agent: "nope" }) })
      const refused = yield* plugins.prepare(configChange(first, broken)).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "UnknownPlugin")
      assert.strictEqual(yield* Effect.scoped(plugins.of(first, first.projects.app!)), app, "still the plugins it had")
      assert.notInclude(log, "closed app (echo app)")
      assert.notInclude(log, "closed web (echo web)")

      const next = yield* t.load({ app: t.project("app", { agentConfig: { command: "echo two" } }), api: t.project("api") })
      log.length = 0
      const prepared = yield* plugins.prepare(configChange(first, next))
      assert.sameMembers(log, ["built app (echo two)", "built api (echo api)"])
      assert.sameMembers(prepared.built.map((slots) => slots.project.id), ["app", "api"])
      assert.strictEqual(yield* Effect.scoped(plugins.of(first, first.projects.app!)), app, "not in force before the commit")
      yield* prepared.commit
      assert.sameMembers(log.slice(2), ["closed app (echo app)", "closed web (echo web)"])
      const swapped = yield* Effect.scoped(plugins.of(next, next.projects.app!))
      assert.strictEqual(swapped, prepared.built.find((slots) => slots.project.id === "app"))

      // A procedure still on the old config gets plugins of its own, closed with its scope; those in force stay.
      log.length = 0
      yield* Effect.scoped(plugins.of(first, first.projects.app!))
      assert.deepStrictEqual(log, ["built app (echo app)", "closed app (echo app)"])
      assert.strictEqual(yield* Effect.scoped(plugins.of(next, next.projects.app!)), swapped)
    }))

  it.effect("a reload that changes the hosts makes their connections again; the replaced ones close a minute later", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      const { plugins } = yield* t.build(ProjectPlugins.layer({ supervisor: false }))
      const projects = { app: t.project("app") }
      const first = yield* t.load(projects, { a: { ssh: "orch@127.0.0.1:22" } })
      const before = yield* plugins.connections(first)
      assert.strictEqual(
        yield* plugins.connections(yield* t.load(projects, { a: { ssh: "orch@127.0.0.1:22" } })),
        before,
        "the same hosts, the same connections"
      )
      const following = yield* Effect.forkChild(Stream.runDrain(before.changes))

      const next = yield* t.load(projects, { a: { ssh: "orch@127.0.0.1:22" }, b: { ssh: "orch@127.0.0.2:22" } })
      const after = yield* plugins.connections(next)
      assert.notStrictEqual(after, before)
      assert.deepStrictEqual([...(yield* after.states).keys()], ["local", "a", "b"])
      yield* TestClock.adjust(Duration.subtract(RETIRE_CONNECTIONS_AFTER, Duration.seconds(1)))
      assert.isUndefined(following.pollUnsafe(), "still open for what went through them")
      yield* TestClock.adjust("1 second")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(following)), "closed: their changes ended")
      assert.strictEqual(yield* plugins.connections(next), after)
    }))

  it.live("the process runtime's terminals outlive a reload that makes the project's plugins again, and end with the layer", () =>
    Effect.gen(function*() {
      const t = yield* setup()
      const { plugins, close } = yield* t.build(ProjectPlugins.layer({ supervisor: true }))
      const first = yield* t.load({ app: t.project("app") })
      const before = yield* Effect.scoped(plugins.of(first, first.projects.app!))
      const handle = yield* before.runtime.create({
        sessionId: "app-1",
        workingDir: t.root,
        command: "echo ready; exec sleep 60",
        env: { PATH: process.env.PATH ?? "" },
        unsetEnv: []
      })
      const pid = (handle.data as { readonly pid: number }).pid

      const next = yield* t.load({ app: t.project("app", { agentConfig: { command: "echo two" } }) })
      const prepared = yield* plugins.prepare(configChange(first, next))
      yield* prepared.commit
      const after = yield* Effect.scoped(plugins.of(next, next.projects.app!))
      assert.notStrictEqual(after.runtime, before.runtime, "made again")
      assert.deepInclude((yield* after.runtime.probe([handle])).get("app-1"), { _tag: "Alive" })
      assert.deepStrictEqual(yield* after.runtime.list!(), ["app-1"], "the new build still owns its terminal")

      yield* close
      assert.deepStrictEqual(yield* after.runtime.list!(), [], "closing the layer ended its terminals")
      const dead = yield* Effect.sync(() => {
        try {
          process.kill(pid, 0)
          return false
        } catch {
          return true
        }
      }).pipe(Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (gone) => gone, times: 250 }))
      assert.isTrue(dead, `the agent (pid ${pid}) ended with the supervisor`)
    }))

  it.live("projects on one repohost credential share its gateway: a lookup one project made is a free 304 for the other", () =>
    Effect.gen(function*() {
      const t = yield* setup({ GITHUB_TOKEN: "shared-token" })
      const repo = makeRepo(t.root, "origin-app")
      execFileSync("git", ["-C", repo.path, "push", "-q", "origin", "main"])
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const issue = emulator.addIssue("acme/app", { title: "Shared" })
      const tracker = { plugin: "repohost", apiUrl: emulator.url }
      const config = yield* t.load({ app: t.project("app", { repo: "acme/app", tracker }), web: t.project("web", { repo: "acme/app", tracker }) })
      const { plugins } = yield* t.build(ProjectPlugins.layer({ supervisor: false }))
      const app = yield* Effect.scoped(plugins.of(config, config.projects.app!))
      const web = yield* Effect.scoped(plugins.of(config, config.projects.web!))
      const seen = yield* app.tracker.getIssue(String(issue))
      assert.deepStrictEqual(yield* web.tracker.getIssue(String(issue)), seen)
      assert.strictEqual(emulator.stats.notModified, 1, "web asked with app's ETag")
    }))
})
