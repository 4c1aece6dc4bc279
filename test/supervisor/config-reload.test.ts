/**
 * The supervisor's config reload under TestClock (actors/config-reload.ts): the test writes the config file
 * and says it changed (the stream watch.ts gives in the real supervisor); the clock decides when the burst has
 * settled. The runtime is orch/testing's in-memory one, given as a Layer, so a test can tell that no session's
 * terminal was touched. Each step waits on its receipt: the event the reload appends.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { followConfigFile, RELOAD_SETTLE, REWATCH_AFTER } from "../../actors/config-reload.ts"
import { ConfigSource } from "../../src/config/ConfigSource.ts"
import { ConfigWatchFailed } from "../../src/config/watch.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { loadCheckedConfig } from "../../src/plugins/config-check.ts"
import { buildNotifiers } from "../../src/plugins/notifier/registry.ts"
import { Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { readConfigState } from "../../src/store/config-state.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { makeInbox } from "../../src/store/Inbox.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { makeTestRuntime } from "../../src/testing/index.ts"
import { tempDir, withHost } from "../support/host.ts"
import { drivenSupervisorOn, eventReceipts } from "../support/supervisor.ts"

const iso = (ms: number) => new Date(ms).toISOString()
const hostedOnly = { urgent: ["hosted"], action: ["hosted"], warning: ["hosted"], info: ["hosted"] }

/** `watch` makes the stream of changes from the queue the test offers to (by default, just that queue). */
const setupWith = (watch: (changes: Queue.Queue<void>, file: string) => Stream.Stream<void, ConfigWatchFailed> = (changes) => Stream.fromQueue(changes)) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const file = join(root, "orchestrator.yaml")
    const project = (name: string) => ({
      repo: `acme/${name}`,
      path: join(root, name),
      agent: "command",
      agentConfig: { command: "true" }
    })
    const write = (projects: Record<string, unknown>, rest: Record<string, unknown> = {}) =>
      writeFileSync(
        file,
        stringify({
          notificationRouting: hostedOnly,
          ...rest,
          projects
        })
      )
    write({ app: project("app") })
    const host = withHost({ cwd: root, homeDir: root, env: {} })
    const { config } = yield* loadCheckedConfig(file).pipe(host, Effect.provide(NodeServices.layer))

    const store = SessionStore.make(root)
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const appended = yield* eventReceipts(events)
    const runtime = makeTestRuntime()
    const inbox = makeInbox(root)
    const session = (sessionId: string, projectId: string) =>
      Effect.map(runtime.create({ sessionId, workingDir: join(root, "w", sessionId), command: "true", env: {}, unsetEnv: [] }), (handle): SessionRecord => ({
        sessionId,
        projectId,
        issueId: "1",
        status: "working",
        activity: "active",
        activitySince: iso(0),
        branch: "feat/1",
        workspacePath: join(root, "w", sessionId),
        runtime: handle,
        agent: { plugin: "command" },
        pr: null,
        createdAt: iso(0),
        updatedAt: iso(0)
      }))
    yield* store.write(yield* session("app-1", "app"))
    // A session of a project the config does not have yet: a reload that adds the project takes it in charge.
    yield* store.write(yield* session("web-1", "web"))

    const notifiers = yield* buildNotifiers(config, inbox).pipe(Effect.provide(NodeServices.layer))
    const supervisor = yield* drivenSupervisorOn({
      config,
      store,
      events,
      replace: { runtime: Runtime.layerTest(runtime) },
      notifiers,
      routing: config.notificationRouting
    })
    const { context } = supervisor
    yield* supervisor.adopt()
    const changes = yield* Queue.unbounded<void>()
    yield* followConfigFile({ root, file, inbox, changes: watch(changes, file) }).pipe(
      Effect.provide(supervisor.services),
      Effect.provide(context),
      host
    )
    const configs = yield* ConfigSource.use(Effect.succeed).pipe(Effect.provide(context))
    /** The file changed: says so (the burst settles only when the test moves the clock). */
    const changed = (text?: string) =>
      Effect.gen(function*() {
        if (text !== undefined) writeFileSync(file, text)
        yield* Queue.offer(changes, undefined)
      })
    const logged = () => existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []
    const ofType = (type: string) => logged().filter((event) => event.type === type)
    /** Waits for the receipt of a reload: the events of `type`, once `count` of them were appended. */
    const receipts = appended.ofType
    /** The sessions' terminals. */
    const terminals = () => [...runtime.terminals.keys()]
    const projectIds = Effect.map(configs.current, (current) => Object.values(current.projects).map((p) => p.id).sort())
    return { root, file, write, project, supervisor, changed, receipts, ofType, logged, terminals, projectIds, inbox, state: () => readConfigState(root) }
  })
const setup = setupWith()

describe("config reload (TestClock)", () => {
  it.effect("a burst of writes settles first: only the last content is read; a new project is watched, its live session adopted", () =>
    Effect.gen(function*() {
      const t = yield* setup
      // The watch's first look (as it is set up) at a file that did not change: no event (checked below).
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)

      // An editor's save: a half-written file, then whole ones, each within the settle time of the one before
      // (the last one 399 ms after the first: a reload 300 ms after the first change would have read the second).
      yield* t.changed("projects:\n  app: {repo: acme/app\n")
      yield* TestClock.adjust(100)
      t.write({ app: t.project("app"), web: t.project("web") })
      yield* t.changed()
      yield* TestClock.adjust("299 millis")
      t.write({ app: t.project("app"), web: t.project("web"), api: t.project("api") })
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      // Reloads run one after the other, each logging before the next: an earlier one would be seen first.
      const [applied] = yield* t.receipts("config.applied", 1)

      assert.deepStrictEqual(t.ofType("config.rejected"), [], "the half-written content was never read")
      assert.deepInclude(applied.data, { added: ["api", "web"], removed: [], changed: [], restartNeeded: [], unwatched: [], adopted: ["web-1"] })
      assert.strictEqual(applied.message, "projects added: api, web")
      assert.deepStrictEqual(yield* t.projectIds, ["api", "app", "web"])
      assert.deepStrictEqual((yield* t.supervisor.projects).map((p) => p.id).sort(), ["api", "app", "web"])
      assert.deepInclude(t.ofType("session.adopted").find((e) => e.sessionId === "web-1"), {
        projectId: "web",
        message: "a config reload added its project",
        data: { reload: true }
      })
      assert.deepStrictEqual(t.ofType("session.adopted").map((e) => e.sessionId), ["app-1", "web-1"], "app-1 was adopted at start only, not again")
      assert.strictEqual(yield* t.supervisor.actorCount, 2)
      assert.deepStrictEqual(t.terminals(), ["app-1", "web-1"], "no terminal was created or destroyed")
    }).pipe(Effect.scoped))

  it.effect("an invalid file is kept out: config.rejected with where, a warning in the inbox, the state for orch status; fixed, it is applied", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const broken = `plugins: {}\nprojects:\n  app:\n    path: ${t.root}/app\n`
      yield* t.changed(broken)
      yield* TestClock.adjust(RELOAD_SETTLE)
      const [rejected] = yield* t.receipts("config.rejected", 1)
      assert.strictEqual(rejected.message, `Validation error at "projects.app.repo": Required (${t.file}:3:3)`)
      assert.deepInclude(rejected.data, { file: t.file, location: `${t.file}:3:3` })
      assert.deepInclude(t.state()?.rejected, { since: iso(300), problem: "Validation error at \"projects.app.repo\": Required", location: `${t.file}:3:3` })
      assert.deepStrictEqual(yield* t.projectIds, ["app"], "the config in force is the old one")
      assert.strictEqual(yield* t.supervisor.actorCount, 1)
      yield* t.receipts("notification.sent", 1)
      const [notification] = yield* t.inbox.list()
      assert.deepInclude(notification, { type: "config.rejected", priority: "warning", title: `config not applied: ${t.file}` })
      assert.include(notification!.message, "keeps running on the config it had")

      // Saved again with the same mistake: nothing new to tell. Then another mistake: told (so the second event is
      // this one, not a repeat), the error dating from the first.
      yield* t.changed(broken)
      yield* TestClock.adjust(RELOAD_SETTLE)
      yield* t.changed("projects: [\n")
      yield* TestClock.adjust(RELOAD_SETTLE)
      const both = yield* t.receipts("config.rejected", 2)
      assert.include(both[1].message, "YAML syntax error")
      assert.strictEqual(t.state()?.rejected?.since, iso(300))
      // Deleted: a problem like the others; the config in force stays.
      rmSync(t.file)
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      const gone = yield* t.receipts("config.rejected", 3)
      assert.strictEqual(gone[2].message, "the file is gone (deleted or moved)")
      assert.deepStrictEqual(yield* t.projectIds, ["app"])

      t.write({ app: t.project("app") })
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      const [applied] = yield* t.receipts("config.applied", 1)
      assert.strictEqual(applied.message, "valid again: nothing the supervisor runs on changed")
      assert.isUndefined(t.state()?.rejected)
      assert.strictEqual(t.state()?.appliedAt, iso(1500))
    }).pipe(Effect.scoped))

  it.effect("a removed project's sessions keep running, unwatched; a new port waits for a restart, the rest applies", () =>
    Effect.gen(function*() {
      const t = yield* setup
      t.write({ web: t.project("web") }, { port: 4555, readyThresholdMs: 1000 })
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      const [applied] = yield* t.receipts("config.applied", 1)
      assert.deepInclude(applied.data, {
        added: ["web"],
        removed: ["app"],
        settings: ["readyThresholdMs"],
        restartNeeded: ["port"],
        unwatched: ["app-1"],
        adopted: ["web-1"]
      })
      assert.include(applied.message, "port needs a restart; 1 session(s) of removed projects keep running, unwatched: app-1")
      assert.deepStrictEqual(t.terminals(), ["app-1", "web-1"], "app-1's terminal is left alone")
      assert.strictEqual(yield* t.supervisor.actorCount, 1)
      assert.deepStrictEqual(t.state()?.restartNeeded?.settings, ["port"])
      assert.deepStrictEqual(yield* t.projectIds, ["web"])

      // Saved again, port still new: nothing new to say. Put back: the wait is over.
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      t.write({ web: t.project("web") }, { readyThresholdMs: 1000 })
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      // The second event is the put-back one: the save in between said nothing.
      const both = yield* t.receipts("config.applied", 2)
      assert.deepInclude(both[1].data, { restartNeeded: [], settings: [], added: [], removed: [] })
      assert.isUndefined(t.state()?.restartNeeded)
    }).pipe(Effect.scoped))

  it.effect("a valid file whose plugin cannot be made is rejected, and nothing changed", () =>
    Effect.gen(function*() {
      const t = yield* setup
      t.write({ app: t.project("app"), web: { ...t.project("web"), agent: "no-such-agent" } })
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      const [rejected] = yield* t.receipts("config.rejected", 1)
      assert.include(rejected.message, `Validation error at "projects.web.agent": Unknown agent plugin "no-such-agent"`)
      assert.strictEqual(
        rejected.data?.location,
        `${t.file}:${readFileSync(t.file, "utf8").split("\n").findIndex((line) => line.includes("no-such-agent")) + 1}:5`
      )
      assert.deepStrictEqual(yield* t.projectIds, ["app"])
      assert.deepStrictEqual((yield* t.supervisor.projects).map((p) => p.id), ["app"])
      assert.deepStrictEqual(t.ofType("config.applied"), [])
    }).pipe(Effect.scoped))

  it.effect("a watch that breaks is said in the state for orch status, set up again after REWATCH_AFTER, and the file looked at", () =>
    Effect.gen(function*() {
      let arms = 0
      const t = yield* setupWith((changes, file) =>
        Stream.suspend(() => (++arms === 1 ? Stream.fail(new ConfigWatchFailed({ file, reason: "ENOSPC" })) : Stream.fromQueue(changes)))
      )
      // The watch's failure is recorded once the state says it: the receipt.
      yield* t.receipts("supervisor.error", 1)
      assert.strictEqual(t.state()?.unwatched?.reason, "ENOSPC")
      assert.strictEqual(t.state()?.unwatched?.since, iso(0))
      // A change made while nobody watched: seen once the watch is back (its first look).
      t.write({ app: t.project("app"), web: t.project("web") })
      yield* TestClock.adjust(REWATCH_AFTER)
      yield* t.changed()
      yield* TestClock.adjust(RELOAD_SETTLE)
      const [applied] = yield* t.receipts("config.applied", 1)
      assert.deepInclude(applied.data, { added: ["web"] })
      assert.strictEqual(arms, 2)
      assert.isUndefined(t.state()?.unwatched)
      const [error] = t.ofType("supervisor.error")
      assert.deepStrictEqual(error.data, { loop: "config watch", attempt: 1 })
      assert.match(error.message, /^Config watch failed: .*ENOSPC.*; orch tries again in 5 s\.$/)
    }).pipe(Effect.scoped))
})
