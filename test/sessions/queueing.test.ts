/**
 * Admission rounds (src/sessions/queueing.ts) and their recovery (queue-recovery.ts) on the real queue, event log
 * and session store, with a spawn that reserves and claims as the real one does and then does what the test says:
 * an entry leaves the queue only once its session exists; whose failure it was decides whether it is dropped (the
 * entry's own), held back (its host's) or waits; a cancelled spawn puts it back; a crash at any step is finished or
 * undone by recovery, each with its events exactly once. And rounds one after another on a machine with room for 2.5
 * sessions: the sessions the last ones started hold their memory.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/testing/TestClock"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { validateConfig } from "../../src/config/validate.ts"
import type { OrchEvent } from "../../src/domain/event.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { InvalidIssueId, IssueNotFound } from "../../src/plugins/tracker/Tracker.ts"
import { NoHostFits, SpawnFailed } from "../../src/sessions/errors.ts"
import type { SpawnFailure } from "../../src/sessions/failure-owner.ts"
import { recoverQueue } from "../../src/sessions/queue-recovery.ts"
import { makeQueueing } from "../../src/sessions/queueing.ts"
import type { SpawnTarget } from "../../src/sessions/SessionOps.ts"
import type { ClaimError } from "../../src/sessions/spawn-run.ts"
import { EventLog } from "../../src/store/EventLog.ts"
import { readHolds } from "../../src/store/holds-file.ts"
import { QueueStore } from "../../src/store/QueueStore.ts"
import { writeSessionSizes } from "../../src/store/session-sizes-file.ts"
import { SessionStore } from "../../src/store/SessionStore.ts"
import { tempDir, withHost } from "../support/host.ts"
import { workingSession } from "../support/session-record.ts"

/**
 * What the fake spawn does once it has reserved and claimed: succeed, fail, hang (until cancelled), or write its first
 * record and wait at a gate the test opens (`Gate`: it says `drafted` once it has, then succeeds or fails as opened).
 */
type Plan =
  | { readonly _tag: "Succeed" }
  | { readonly _tag: "Fail"; readonly error: SpawnFailure }
  | { readonly _tag: "Hang" }
  | {
    readonly _tag: "Gate"
    readonly drafted: Deferred.Deferred<void>
    readonly open: Deferred.Deferred<SpawnFailure | undefined>
    /** Said once the spawn is cancelled; its undo then waits for `undo`, as a real one waits for its git and tmux. */
    readonly cancelled: Deferred.Deferred<void>
    readonly undo: Deferred.Deferred<void>
  }

const setup = (plan: (issue: string) => Plan, projectSettings: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({
      projects: { app: { repo: "acme/app", path: join(root, "app"), tracker: { plugin: "none" }, ...projectSettings } }
    }).pipe(withHost({ cwd: root, homeDir: root }))
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const queue = QueueStore.make(root, events)
    const store = SessionStore.make(root)
    const hung = yield* Deferred.make<string>()
    const priorities: Array<[string, number | undefined]> = []
    const spawn = (
      _projectId: string,
      target: SpawnTarget,
      options: {
        readonly claim?: ((id: string) => Effect.Effect<void, ClaimError>) | undefined
        readonly drafted?: Effect.Effect<void> | undefined
        readonly priority?: number | undefined
      }
    ) =>
      Effect.gen(function*() {
        const issue = target._tag === "Issue" ? target.issue : ""
        priorities.push([issue, options.priority])
        const sessionId = yield* store.reserve("app", "app")
        if (options.claim !== undefined) yield* options.claim(sessionId)
        const step = plan(issue)
        if (step._tag === "Hang") {
          // As the real spawn: what it made is undone if it is cancelled at any point from here.
          return yield* store.write(workingSession(0, { sessionId, issueId: issue, status: "spawning", spawn: { pid: process.pid, startedAt: "" } })).pipe(
            Effect.andThen(Deferred.succeed(hung, sessionId)),
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Effect.orDie(store.release("app", sessionId)))
          )
        }
        if (step._tag === "Gate") {
          // As the real spawn: its first record, then the steps that take time; undone if they fail.
          yield* store.write(workingSession(0, { sessionId, issueId: issue, status: "spawning", spawn: { pid: process.pid, startedAt: "" } }))
          if (options.drafted !== undefined) yield* options.drafted
          yield* Deferred.succeed(step.drafted, undefined)
          const failure = yield* Deferred.await(step.open).pipe(
            Effect.onInterrupt(() =>
              Deferred.succeed(step.cancelled, undefined).pipe(
                Effect.andThen(Deferred.await(step.undo)),
                Effect.andThen(Effect.orDie(store.release("app", sessionId)))
              )
            )
          )
          if (failure !== undefined) {
            yield* store.release("app", sessionId)
            return yield* Effect.fail(failure)
          }
        }
        if (step._tag === "Fail") {
          yield* store.release("app", sessionId)
          return yield* Effect.fail(step.error)
        }
        const record = workingSession(0, { sessionId, issueId: issue })
        yield* store.write(record)
        return { record }
      }).pipe(Effect.mapError((error): SpawnFailure => error))
    const queueing = makeQueueing({
      queue,
      events,
      store,
      config: Effect.succeed(config),
      findProject: (c) => Effect.succeed(c.projects.app!),
      spawn,
      lookup: () => Effect.succeed(undefined),
      // Placement as SessionManager's: a host held back for the project is left out (here the only host, b).
      unplaceable: (_config, _records, _ids, holds) => Effect.succeed(holds.some((hold) => hold.host === "b") ? { app: "b: a spawn there failed" } : {})
    })
    const logged = (): Array<OrchEvent> =>
      existsSync(events.path) ? readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as OrchEvent) : []
    const types = () => logged().map((event) => event.type)
    const entries = () => Effect.map(queue.list, (list) => list.map((e) => `${e.issue}${e.admitting !== undefined ? `@${e.admitting.sessionId}` : ""}`))
    return { root, queue, queueing, store, events, logged, types, entries, hung, priorities }
  })

/** A gated spawn per issue, and the receipts the tests wait on. */
const gatesFor = (issues: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const gates = new Map<string, Extract<Plan, { _tag: "Gate" }>>()
    const undo = yield* Deferred.make<void>()
    for (const issue of issues) {
      gates.set(issue, {
        _tag: "Gate",
        drafted: yield* Deferred.make<void>(),
        open: yield* Deferred.make<SpawnFailure | undefined>(),
        cancelled: yield* Deferred.make<void>(),
        undo
      })
    }
    const of = (issue: string) => gates.get(issue)!
    return {
      of,
      plan: (issue: string): Plan => of(issue),
      allDrafted: Effect.forEach([...gates.values()], (gate) => Deferred.await(gate.drafted), { discard: true }),
      allCancelled: Effect.forEach([...gates.values()], (gate) => Deferred.await(gate.cancelled), { discard: true }),
      undoAll: Deferred.succeed(undo, undefined),
      openAll: () => Effect.forEach([...gates.values()], (gate) => Deferred.succeed(gate.open, undefined), { discard: true })
    }
  })

/** Issues 1, 2 and 3 queued, and a round forked here whose three starts are all under way, each at its gate. */
const threeUnderWay = Effect.gen(function*() {
  const gates = yield* gatesFor(["1", "2", "3"])
  const t = yield* setup((issue) => gates.plan(issue))
  yield* t.queueing.queueAdd("app", ["1", "2", "3"], 0)
  const round = yield* Effect.forkChild(t.queueing.admit())
  yield* gates.allDrafted
  return { gates, t, round }
})

const run = <A, E>(effect: Effect.Effect<A, E, import("effect/Scope").Scope>) => effect.pipe(Effect.scoped, Effect.provide(NodeServices.layer))

describe("admission rounds", () => {
  it.effect("an entry leaves the queue once its session exists: queue.added, then one queue.admitted naming the session", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      yield* t.queueing.queueAdd("app", ["7", "#8"], 0)
      const { waiting, admitted, dropped } = yield* t.queueing.admit()
      assert.deepStrictEqual([waiting, admitted, dropped], [[], 2, []])
      assert.deepStrictEqual(yield* t.entries(), [])
      assert.deepStrictEqual(t.logged().map((e) => [e.type, e.issueId, e.sessionId]), [
        ["queue.added", "7", undefined],
        ["queue.added", "8", undefined],
        ["queue.admitted", "7", "app-1"],
        ["queue.admitted", "8", "app-2"]
      ])
      // The queue file holds no outbox once its events are written.
      assert.notInclude(readFileSync(t.queue.path, "utf8"), "outbox")
    })))

  it.effect("an entry's spawn is given its priority, which the session keeps (a merge train orders by it)", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      yield* t.queueing.queueAdd("app", ["7"], 3)
      yield* t.queueing.queueAdd("app", ["8"], 0)
      yield* t.queueing.admit()
      assert.deepStrictEqual(t.priorities, [["7", 3], ["8", 0]])
    })))

  it.effect("an entry whose spawn finds no host waits again, with the hosts' reason; nothing is dropped", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Fail", error: new NoHostFits({ reason: "no host can take the session: a: it is down (refused)" }) }))
      yield* t.queueing.queueAdd("app", ["7"], 0)
      const { waiting, dropped } = yield* t.queueing.admit()
      assert.deepStrictEqual(dropped, [])
      assert.deepStrictEqual(waiting.map((w) => [w.entry.issue, w.reason]), [[
        "7",
        "no host can take the session: a: it is down (refused); `orch hosts` shows each host's figures and errors"
      ]])
      assert.deepStrictEqual(yield* t.entries(), ["7"])
      assert.notInclude(t.types(), "queue.dropped")
    })))

  it.effect("the entry's own failure (the issue does not exist) drops it, once, saying why", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Fail", error: new IssueNotFound({ issueId: "7", where: "acme/app" }) }))
      yield* t.queueing.queueAdd("app", ["7"], 0)
      const { waiting, dropped } = yield* t.queueing.admit()
      assert.deepStrictEqual(waiting, [])
      assert.deepStrictEqual(dropped.map((d) => [d.entry.issue, d.reason]), [["7", "issue 7 not found in acme/app"]])
      assert.deepStrictEqual(yield* t.entries(), [])
      assert.deepStrictEqual(t.logged().filter((e) => e.type === "queue.dropped").map((e) => e.message), [
        "q-1 (7) could not start: issue 7 not found in acme/app"
      ])
    })))

  it.effect("a failure of its host holds that host back for the project and the entry waits; people hear once, not per entry", () =>
    run(Effect.gen(function*() {
      const gitSaysNo = new SpawnFailed({
        project: "app",
        issueId: "7",
        step: "creating the workspace",
        reason: "fatal: detected dubious ownership",
        host: "b"
      })
      const t = yield* setup(() => ({ _tag: "Fail", error: gitSaysNo }))
      yield* t.queueing.queueAdd("app", ["7", "8"], 0)
      const { waiting, dropped, held } = yield* t.queueing.admit()
      assert.deepStrictEqual(dropped, [])
      assert.deepStrictEqual(waiting.map((w) => [w.entry.issue, w.reason]), [["7", "waiting for a host: b: a spawn there failed"], [
        "8",
        "waiting for a host: b: a spawn there failed"
      ]])
      assert.deepStrictEqual(yield* t.entries(), ["7", "8"])
      assert.deepStrictEqual(held.map((news) => [news.hold.host, news.fresh]), [["b", true]])
      assert.deepStrictEqual((yield* readHolds(t.root)).map((hold) => [hold.project, hold.host, hold.reason]), [[
        "app",
        "b",
        "creating the workspace: fatal: detected dubious ownership"
      ]])
      assert.deepStrictEqual(t.types().filter((type) => type === "queue.held"), ["queue.held"])
      assert.notInclude(t.types(), "queue.dropped")
    })))

  it.effect("a spawn cancelled half-way (the supervisor stops) puts its entry back where it was", () =>
    run(Effect.gen(function*() {
      const t = yield* setup((issue) => (issue === "7" ? { _tag: "Hang" } : { _tag: "Succeed" }))
      yield* t.queueing.queueAdd("app", ["7", "8"], 0)
      const round = yield* Effect.forkChild(t.queueing.admit())
      // Receipt: the spawn is under way, its entry claimed as app-1 and that session's record written.
      assert.strictEqual(yield* Deferred.await(t.hung), "app-1")
      assert.deepStrictEqual(yield* t.entries(), ["7@app-1", "8"])
      yield* Fiber.interrupt(round)
      assert.deepStrictEqual(yield* t.entries(), ["7", "8"])
      assert.deepStrictEqual((yield* t.store.list).records, [])
      assert.deepStrictEqual(t.types(), ["queue.added", "queue.added"])
    })))

  it.effect("admitted entries start side by side: each once the one before has its first record; the round ends when all have", () =>
    run(Effect.gen(function*() {
      // Receipt: all three are under way at once, each its own session, before any has ended.
      const { gates, t, round } = yield* threeUnderWay
      assert.deepStrictEqual(yield* t.entries(), ["1@app-1", "2@app-2", "3@app-3"])
      yield* gates.openAll()
      const { waiting, admitted } = yield* Fiber.join(round)
      assert.deepStrictEqual([waiting, admitted], [[], 3])
      assert.deepStrictEqual(yield* t.entries(), [])
    })))

  it.effect("a round cancelled (the supervisor stops) cancels every start under way at once, none left to end whole meanwhile", () =>
    run(Effect.gen(function*() {
      const { gates, t, round } = yield* threeUnderWay
      const stopping = yield* Effect.forkChild(Fiber.interrupt(round))
      // Receipt: all three are told before any has undone itself (told one after another, each waiting for the one
      // before to finish its undo, the others would go on meanwhile).
      yield* gates.allCancelled
      yield* gates.undoAll
      yield* Fiber.join(stopping)
      assert.deepStrictEqual(yield* t.entries(), ["1", "2", "3"])
      assert.deepStrictEqual((yield* t.store.list).records, [])
      assert.notInclude(t.types(), "queue.admitted")
    })))

  it.effect("each decision counts the sessions starting: maxSessions 2 starts two side by side, and the third once one fails", () =>
    run(Effect.gen(function*() {
      const gates = yield* gatesFor(["1", "2", "3"])
      const t = yield* setup((issue) => gates.plan(issue), { maxSessions: 2 })
      yield* t.queueing.queueAdd("app", ["1", "2", "3"], 0)
      const round = yield* Effect.forkChild(t.queueing.admit())
      yield* Deferred.await(gates.of("1").drafted)
      yield* Deferred.await(gates.of("2").drafted)
      assert.deepStrictEqual(yield* t.entries(), ["1@app-1", "2@app-2", "3"])
      // The first fails as its own (its issue is gone): it leaves the queue, and its place goes to the third.
      yield* Deferred.succeed(gates.of("1").open, new IssueNotFound({ issueId: "1", where: "acme/app" }))
      yield* Deferred.await(gates.of("3").drafted)
      assert.deepStrictEqual(yield* t.entries(), ["2@app-2", "3@app-3"])
      yield* gates.openAll()
      const { waiting, admitted, dropped } = yield* Fiber.join(round)
      assert.deepStrictEqual([waiting, admitted, dropped.map((d) => d.entry.issue)], [[], 2, ["1"]])
    })))

  it.effect("queue add refuses what is not an issue id before anything is queued (the same rule as spawn and batch-spawn)", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      for (const bad of ["", " ", "a b", "x;y", "-1"]) {
        const refused = yield* Effect.flip(t.queueing.queueAdd("app", ["5", bad], 0))
        assert.instanceOf(refused, InvalidIssueId)
      }
      assert.deepStrictEqual(yield* t.entries(), [])
      assert.deepStrictEqual(t.types(), [])
    })))
})

describe("recovery of admissions a crash cut short", () => {
  /** Queues issue 7 and marks it as being started as `sessionId` by a process that is gone. */
  const orphan = (t: Effect.Success<ReturnType<typeof setup>>, sessionId: string) =>
    Effect.gen(function*() {
      yield* t.queueing.queueAdd("app", ["7"], 0)
      const file = JSON.parse(readFileSync(t.queue.path, "utf8"))
      file.entries[0].admitting = { sessionId, by: "999999999 1", at: new Date().toISOString() }
      writeFileSync(t.queue.path, JSON.stringify(file))
    })
  const recover = (t: Effect.Success<ReturnType<typeof setup>>, undone: Array<string>) =>
    recoverQueue({
      queue: t.queue,
      store: t.store,
      orphaned: t.queueing.orphaned,
      undoSpawn: (record: SessionRecord) => Effect.andThen(Effect.sync(() => void undone.push(record.sessionId)), t.store.release("app", record.sessionId))
    })

  it.effect("killed after the id was reserved, before the record: the id is released and the entry waits where it was", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      const sessionId = yield* t.store.reserve("app", "app")
      yield* orphan(t, sessionId)
      const undone: Array<string> = []
      assert.deepStrictEqual(yield* recover(t, undone), [{ entryId: "q-1", sessionId: "app-1", outcome: "returned" }])
      assert.deepStrictEqual(yield* t.entries(), ["7"])
      assert.deepStrictEqual(yield* t.store.reservations, [])
      assert.deepStrictEqual(t.types(), ["queue.added", "queue.recovered"])
      // Run again (recovery itself killed and run again): nothing more happens.
      assert.deepStrictEqual(yield* recover(t, undone), [])
      assert.deepStrictEqual(t.types(), ["queue.added", "queue.recovered"])
    })))

  it.effect("killed half-way through the spawn: the spawn is undone and the entry waits again", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      yield* orphan(t, "app-1")
      const sessionId = yield* t.store.reserve("app", "app")
      yield* t.store.write(workingSession(0, { sessionId, issueId: "7", status: "spawning", spawn: { pid: 999999999, startedAt: "" } }))
      const undone: Array<string> = []
      yield* recover(t, undone)
      assert.deepStrictEqual(undone, ["app-1"])
      assert.deepStrictEqual(yield* t.entries(), ["7"])
    })))

  it.effect("killed after the session was whole: the entry is admitted, with queue.admitted once", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      yield* orphan(t, "app-1")
      const sessionId = yield* t.store.reserve("app", "app")
      yield* t.store.write(workingSession(0, { sessionId, issueId: "7" }))
      yield* recover(t, [])
      assert.deepStrictEqual(yield* t.entries(), [])
      assert.deepStrictEqual(t.logged().map((e) => [e.type, e.sessionId, (e.data as { outcome?: string } | undefined)?.outcome]), [
        ["queue.added", undefined, undefined],
        ["queue.admitted", "app-1", undefined],
        ["queue.recovered", "app-1", "admitted"]
      ])
    })))

  it.effect("an entry claimed by a process that still runs is left alone", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      yield* t.queueing.queueAdd("app", ["7"], 0)
      const file = JSON.parse(readFileSync(t.queue.path, "utf8"))
      // pid 1 runs (and is not this process).
      file.entries[0].admitting = { sessionId: "app-1", by: "1", at: new Date().toISOString() }
      writeFileSync(t.queue.path, JSON.stringify(file))
      assert.deepStrictEqual(yield* recover(t, []), [])
      assert.deepStrictEqual(yield* t.entries(), ["7@app-1"])
    })))

  it.effect("events a crash left in the queue's outbox are appended by the next change, and never twice", () =>
    run(Effect.gen(function*() {
      const t = yield* setup(() => ({ _tag: "Succeed" }))
      yield* t.queueing.queueAdd("app", ["7"], 0)
      // As a writer killed after writing the change with its events, before appending them: q-2 queued, its event owed.
      const file = JSON.parse(readFileSync(t.queue.path, "utf8"))
      const owed = { timestamp: new Date().toISOString(), type: "queue.added", projectId: "app", issueId: "8", message: "queued q-2", data: { entryId: "q-2" } }
      file.entries.push({ id: "q-2", projectId: "app", issue: "8", priority: 0, addedAt: owed.timestamp, seq: 2 })
      file.next = 3
      file.outbox = { logOffset: yield* t.events.size, events: [owed] }
      writeFileSync(t.queue.path, JSON.stringify(file))
      yield* t.queueing.queueAdd("app", ["9"], 0)
      assert.deepStrictEqual(t.logged().map((e) => [e.type, e.issueId]), [["queue.added", "7"], ["queue.added", "8"], ["queue.added", "9"]])
      // As a writer killed after appending them, before clearing the outbox: the next change does not append them again.
      const again = JSON.parse(readFileSync(t.queue.path, "utf8"))
      again.outbox = { logOffset: 0, events: [owed] }
      writeFileSync(t.queue.path, JSON.stringify(again))
      yield* t.queueing.queueAdd("app", ["10"], 0)
      assert.deepStrictEqual(t.logged().map((e) => e.issueId), ["7", "8", "9", "10"])
    })))
})

describe("admission rounds count the sessions they started", () => {
  const GB = 1024 ** 3
  const setupRounds = Effect.gen(function*() {
    const root = yield* tempDir()
    const config = yield* validateConfig({ projects: { app: { repo: "acme/app", path: join(root, "app"), tracker: { plugin: "none" } } } }).pipe(
      withHost({ cwd: root, homeDir: root })
    )
    const events = yield* EventLog.make(join(root, "events.jsonl"))
    const store = SessionStore.make(root)
    // This machine's MemAvailable: the 1 GB reserve and room for 2.5 sessions of the default 1 GB.
    const free = yield* Ref.make(3.5 * GB)
    const queueing = makeQueueing({
      queue: QueueStore.make(root, events),
      events,
      store,
      config: Effect.succeed(config),
      findProject: (c) => Effect.succeed(c.projects.app!),
      // A spawn as the real one leaves it: a record, written now; its agent has not grown yet.
      spawn: (_projectId, target, options) =>
        Effect.gen(function*() {
          const sessionId = yield* store.reserve("app", "app")
          if (options.claim !== undefined) yield* options.claim(sessionId)
          const record = workingSession(yield* Clock.currentTimeMillis, { sessionId, issueId: target._tag === "Issue" ? target.issue : "task" })
          yield* store.write(record)
          return { record }
        }).pipe(Effect.orDie),
      lookup: () => Effect.succeed(undefined),
      unplaceable: () => Effect.succeed({}),
      machine: Effect.all({ freeBytes: Ref.get(free), readAt: Clock.currentTimeMillis }).pipe(Effect.map((m) => ({ ...m, load: 0, cores: 4 })))
    })
    const admitted = () =>
      readFileSync(events.path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { type: string; issueId?: string }).filter((e) =>
        e.type === "queue.admitted"
      ).map((e) => e.issueId)
    return { root, store, free, queueing, admitted }
  })

  it.effect("room for 2.5 sessions: rounds one after another admit 2, and say why the others wait", () =>
    Effect.gen(function*() {
      const t = yield* setupRounds
      yield* t.queueing.queueAdd("app", ["1", "2", "3", "4"], 0)
      const held =
        "waiting for memory on this machine: 3.5 GB free, 1.0 GB of it kept in reserve, 2 sessions just started counted at 1.0 GB each until they are measured, 1.0 GB needed"
      const first = yield* t.queueing.admit()
      assert.deepStrictEqual(t.admitted(), ["1", "2"])
      assert.strictEqual(first.admitted, 2)
      assert.deepStrictEqual(first.waiting.map((w) => [w.entry.issue, w.reason]), [["3", held], ["4", held]])
      // The next round, and the one after, three seconds apart (the supervisor's pace): nothing more starts.
      for (let round = 0; round < 2; round++) {
        yield* TestClock.adjust("3 seconds")
        const again = yield* t.queueing.admit()
        assert.deepStrictEqual([again.admitted, again.waiting.map((w) => w.reason)], [0, [held, held]])
      }
      assert.deepStrictEqual(t.admitted(), ["1", "2"])
      assert.deepStrictEqual((yield* t.store.list).records.map((r) => r.issueId).toSorted(), ["1", "2"])

      // A minute on the agents have grown (MemAvailable shows them) and the supervisor's sample includes them: the
      // reservations end, and the machine's own figure holds the others back.
      yield* TestClock.adjust("55 seconds")
      yield* Ref.set(t.free, 1.5 * GB)
      yield* writeSessionSizes(t.root, { at: new Date(yield* Clock.currentTimeMillis).toISOString(), agents: { "coding-agent": { bytes: GB, rounds: 1 } } })
      const grown = yield* t.queueing.admit()
      assert.deepStrictEqual(grown.waiting.map((w) => w.reason), [
        "waiting for memory on this machine: 1.5 GB free, 1.0 GB of it kept in reserve, 1.0 GB needed",
        "waiting for memory on this machine: 1.5 GB free, 1.0 GB of it kept in reserve, 1.0 GB needed"
      ])

      // One ends and its memory frees: the next entry starts, and holds its own reservation against the last.
      const ended = (yield* t.store.list).records.find((r) => r.issueId === "1")!
      yield* t.store.write({ ...ended, status: "killed", activity: "exited" })
      yield* Ref.set(t.free, 2.5 * GB)
      const freed = yield* t.queueing.admit()
      assert.deepStrictEqual([t.admitted(), freed.admitted], [["1", "2", "3"], 1])
      assert.deepStrictEqual(freed.waiting.map((w) => [w.entry.issue, w.reason]), [[
        "4",
        "waiting for memory on this machine: 2.5 GB free, 1.0 GB of it kept in reserve, 1 session just started counted at 1.0 GB until it is measured, 1.0 GB needed"
      ]])
    }).pipe(Effect.provide(NodeServices.layer)))
})
