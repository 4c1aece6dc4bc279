/**
 * The session actors (actors/session-actors.ts) on the slots' in-memory fakes, under TestClock: commands go through
 * the session's mailbox, in order with its observations; a command left in the mailbox when the actor stops goes
 * back to its caller; one whose caller went away before it was taken is skipped, one taken is carried out whole; a
 * full mailbox refuses observations without holding up the probe cycle, and the signals it refused are read again;
 * a session orch stopped watching stays so for a new supervisor until a person restores it. Each test waits on
 * receipts: a command's own signal that it runs, the drained mailbox, the record, the data directory's files.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { NotifierRouter } from "../../actors/notifier-router.ts"
import { MAILBOX_CAPACITY, SessionActors } from "../../actors/session-actors.ts"
import { validateConfig } from "../../src/config/validate.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { Agent, makeTestAgent } from "../../src/plugins/agent/Agent.ts"
import { ProjectPlugins } from "../../src/plugins/ProjectPlugins.ts"
import { makeTestRuntime, Runtime } from "../../src/plugins/runtime/Runtime.ts"
import { makeTestScm, Scm } from "../../src/plugins/scm/Scm.ts"
import { makeTestTracker, Tracker } from "../../src/plugins/tracker/Tracker.ts"
import { makeTestWorkspace, Workspace } from "../../src/plugins/workspace/Workspace.ts"
import { SessionManager } from "../../src/sessions/SessionManager.ts"
import { escalationsPath } from "../../src/store/escalations-file.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"
import { drivenSupervisor } from "../support/supervisor.ts"

const iso = (ms: number) => new Date(ms).toISOString()

const setup = Effect.gen(function*() {
  const root = yield* tempDir()
  const config = yield* validateConfig({
    projects: { app: { repo: "acme/app", path: join(root, "app"), agent: "command", agentConfig: { command: "true" } } }
  }).pipe(withHost({ cwd: root, homeDir: root, env: {} }))
  const project = config.projects.app!
  const runtime = makeTestRuntime()
  const workspace = makeTestWorkspace()
  const plugins = ProjectPlugins.layerTest(() =>
    Layer.mergeAll(
      Runtime.layerTest(runtime),
      Agent.layerTest(makeTestAgent()),
      Workspace.layerTest(workspace),
      Tracker.layerTest(makeTestTracker([])),
      Scm.layerTest(makeTestScm())
    )
  )
  const store = SessionStore.make(root)
  const events = yield* EventLog.make(join(root, "events.jsonl"))
  const path = store.paths.worktree("app", "app-1")
  yield* workspace.create({ project, sessionId: "app-1", branch: "feat/1", path })
  const handle = yield* runtime.create({ sessionId: "app-1", workingDir: path, command: "test-agent app-1", env: {}, unsetEnv: [] })
  const record: SessionRecord = {
    sessionId: "app-1",
    projectId: "app",
    issueId: "1",
    status: "working",
    activity: "active",
    activitySince: iso(0),
    branch: "feat/1",
    workspacePath: path,
    runtime: handle,
    agent: { plugin: "test" },
    pr: null,
    createdAt: iso(0),
    updatedAt: iso(0)
  }
  yield* store.write(record)
  const context = yield* Layer.build(
    Layer.mergeAll(NotifierRouter.layer(new Map(), { urgent: [], action: [], warning: [], info: [] }), SessionManager.layerNoDeps(config)).pipe(
      Layer.provideMerge(plugins),
      Layer.provideMerge(Layer.mergeAll(Layer.succeed(SessionStore, store), Layer.succeed(EventLog, events))),
      Layer.provideMerge(NodeServices.layer)
    )
  )
  /** A supervisor on this data directory (a second one is what a restart of orch would be). */
  const supervise = Effect.gen(function*() {
    const supervisor = yield* drivenSupervisor.pipe(Effect.provide(context))
    const actors = yield* Effect.provide(SessionActors.use(Effect.succeed), supervisor.services)
    return { ...supervisor, actors }
  })
  const current = () => JSON.parse(readFileSync(store.paths.record("app", "app-1"), "utf8")) as SessionRecord
  const types = () =>
    existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l).type as string) : []
  /** A command to app-1 that says when it runs, then waits for `gate`; answers what `read` reads then (the record's dead probes). */
  const gated = <A = number>(
    actors: SessionActors["Service"],
    running: Deferred.Deferred<void>,
    gate: Deferred.Deferred<void>,
    read: () => A = () => (current().deadProbes ?? 0) as A
  ) =>
    actors.command(
      "app-1",
      Effect.gen(function*() {
        yield* Deferred.succeed(running, undefined)
        yield* Deferred.await(gate)
        return read()
      })
    )
  return { root, store, runtime, record, supervise, current, types, gated }
})

const latch = Deferred.make<void>()
const open = (gate: Deferred.Deferred<void>) => Deferred.succeed(gate, undefined)

describe("session actors: commands through the mailbox", () => {
  it.effect("a command runs when the actor takes it, after the observations before it and before those after it", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const s = yield* t.supervise
      yield* s.adopt()
      const [running, gate] = [yield* latch, yield* latch]
      const first = yield* Effect.forkChild(t.gated(s.actors, running, gate), { startImmediately: true })
      yield* Deferred.await(running)
      // The actor is in the first command: a probe that finds the terminal gone, then a second command, wait behind it.
      assert.isTrue(yield* s.observe("app-1", { _tag: "Probe", liveness: "gone" }))
      const second = yield* Effect.forkChild(s.actors.command("app-1", Effect.sync(() => t.current().deadProbes ?? 0)), { startImmediately: true })
      yield* open(gate)
      assert.strictEqual(yield* Fiber.join(first), 0, "the probe was not folded while the first command ran")
      assert.strictEqual(yield* Fiber.join(second), 1, "the probe was folded before the second command")
    }))

  it.effect("send, kill and restore are the actor's commands: a send waits behind the command under way", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const s = yield* t.supervise
      yield* s.adopt()
      const [running, gate] = [yield* latch, yield* latch]
      const sent = () => [...t.runtime.terminals.get("app-1")!.sent]
      const first = yield* Effect.forkChild(t.gated(s.actors, running, gate, sent), { startImmediately: true })
      yield* Deferred.await(running)
      const send = yield* Effect.forkChild(s.ops.send("app-1", "hello"), { startImmediately: true })
      yield* open(gate)
      assert.deepStrictEqual(yield* Fiber.join(first), [], "nothing was typed while the command before it ran")
      yield* Fiber.join(send)
      assert.deepStrictEqual(sent(), ["hello"])
      const killed = yield* s.ops.kill("app-1")
      assert.strictEqual(killed.record.status, "killed")
      assert.strictEqual(yield* s.actorCount, 0, "a killed session's actor stops")
    }))

  it.effect("a command still in the mailbox when the actor stops goes back to its caller, which runs it", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const s = yield* t.supervise
      yield* s.adopt()
      const [running, gate] = [yield* latch, yield* latch]
      const first = yield* Effect.forkChild(t.gated(s.actors, running, gate), { startImmediately: true })
      yield* Deferred.await(running)
      const ran: Array<string> = []
      const second = yield* Effect.forkChild(s.actors.command("app-1", Effect.sync(() => ran.push("second"))), { startImmediately: true })
      // Stopping waits for the command under way (it is carried out whole), then ends the actor.
      const stop = yield* Effect.forkChild(s.actors.stop("app-1"), { startImmediately: true })
      yield* open(gate)
      yield* Fiber.join(stop)
      yield* Fiber.join(first)
      assert.strictEqual(yield* Fiber.join(second), 1)
      assert.deepStrictEqual(ran, ["second"], "run once, by its caller")
      assert.strictEqual(yield* s.actorCount, 0)
    }))

  it.effect("a command whose caller went away before it was taken is skipped; one taken is carried out whole", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const s = yield* t.supervise
      yield* s.adopt()
      const [running, gate, running3, gate3] = [yield* latch, yield* latch, yield* latch, yield* latch]
      const ran: Array<string> = []
      yield* Effect.forkChild(t.gated(s.actors, running, gate), { startImmediately: true })
      yield* Deferred.await(running)
      const abandoned = yield* Effect.forkChild(s.actors.command("app-1", Effect.sync(() => ran.push("abandoned"))), { startImmediately: true })
      yield* Fiber.interrupt(abandoned)
      const third = yield* Effect.forkChild(
        s.actors.command("app-1", Effect.andThen(Effect.andThen(open(running3), Deferred.await(gate3)), Effect.sync(() => ran.push("third")))),
        { startImmediately: true }
      )
      yield* open(gate)
      yield* Deferred.await(running3)
      yield* Fiber.interrupt(third)
      yield* open(gate3)
      yield* s.drained("app-1")
      assert.deepStrictEqual(ran, ["third"])
    }))
})

describe("session actors: a full mailbox", () => {
  it.effect("refuses observations without waiting, holds up no probe cycle, and the signals it refused are read again", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const s = yield* t.supervise
      yield* s.adopt()
      const [running, gate] = [yield* latch, yield* latch]
      const first = yield* Effect.forkChild(t.gated(s.actors, running, gate), { startImmediately: true })
      yield* Deferred.await(running)
      const offered = yield* Effect.forEach(Array.from({ length: MAILBOX_CAPACITY + 1 }), () => s.observe("app-1", { _tag: "Tick" }))
      assert.deepStrictEqual(offered.filter((ok) => !ok).length, 1, "the one over its capacity is refused")
      appendFileSync(t.store.paths.activity("app", "app-1"), `${JSON.stringify({ event: "Stop", ts: iso(0) })}\n`)
      yield* s.cycle()
      assert.strictEqual(t.current().activity, "active", "the actor is still in its command")
      yield* open(gate)
      yield* Fiber.join(first)
      yield* s.drained("app-1")
      yield* s.cycle()
      yield* s.drained("app-1")
      assert.strictEqual(t.current().activity, "ready", "the Stop hook refused before was read again")
    }))
})

describe("session actors: escalation is remembered", () => {
  it.effect("a session orch stopped watching is not adopted by a new supervisor; a restore has it watched again", () =>
    Effect.gen(function*() {
      const t = yield* setup
      writeFileSync(
        escalationsPath(t.root),
        JSON.stringify({ escalations: [{ sessionId: "app-1", at: iso(0), reason: "its actor crashed 6 times within 60 s", runtime: t.record.runtime }] })
      )
      const s = yield* t.supervise
      yield* s.adopt()
      assert.strictEqual(yield* s.actorCount, 0, "not watched")
      assert.notInclude(t.types(), "session.adopted")
      // Its agent still runs: the restore only has orch watch it again.
      const restored = yield* s.ops.restore("app-1")
      assert.strictEqual(restored.sessionId, "app-1")
      assert.strictEqual(yield* s.actorCount, 1)
      assert.deepStrictEqual(JSON.parse(readFileSync(escalationsPath(t.root), "utf8")), { escalations: [] })
      const again = yield* t.supervise
      yield* again.adopt()
      assert.strictEqual(yield* again.actorCount, 1, "a new supervisor watches it")
    }))

  it.effect("an escalation holds for the agent it was made for: a session whose agent was started again since is watched", () =>
    Effect.gen(function*() {
      const t = yield* setup
      const before = { plugin: "test", id: "app-1", data: { pid: 1 } }
      writeFileSync(escalationsPath(t.root), JSON.stringify({ escalations: [{ sessionId: "app-1", at: iso(0), reason: "crashed", runtime: before }] }))
      const s = yield* t.supervise
      yield* s.adopt()
      assert.strictEqual(yield* s.actorCount, 1)
    }))
})
