/**
 * The supervisor's conflict prediction (actors/conflict-watch.ts) in orch whole on the TestClock (TestOrch), over a
 * real git repository: each round at the probe interval, its receipts the event log, conflicts.json and what the
 * told session's terminal was sent.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { OrchEvent } from "../../src/domain/event.ts"
import { conflictsPath } from "../../src/store/conflicts-file.ts"
import { TestOrch } from "../../src/testing/TestOrch.ts"
import { git, makeRepo } from "../support/repo.ts"

const commitOn = (repo: string, branch: string, from: string, files: Record<string, string>) => {
  const tree = join(repo, "..", `wt-${branch.replace(/\//g, "-")}-${Math.random().toString(36).slice(2)}`)
  git(repo, "worktree", "add", "-q", "-B", branch, tree, from)
  for (const [file, text] of Object.entries(files)) writeFileSync(join(tree, file), text)
  git(tree, "add", ".")
  git(tree, "commit", "-qm", branch)
  git(repo, "worktree", "remove", "--force", tree)
}

const repository = Effect.acquireRelease(
  Effect.sync(() => {
    const root = mkdtempSync(join(tmpdir(), "orch-conflict-watch-"))
    return { root, ...makeRepo(root) }
  }),
  ({ root }) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
)

const ofType = (events: ReadonlyArray<OrchEvent>, type: string) => events.filter((e) => e.type === type)

/**
 * Waits for a receipt of the rounds: their git processes run in real time, so the clock moves on a probe interval at
 * a time, with a moment of real time between, until `probe` answers (a round that began while the clock moved sleeps
 * from when it ended).
 */
const until = <A>(orch: TestOrch["Service"], what: string, probe: () => Effect.Effect<A | undefined, unknown>) =>
  Effect.gen(function*() {
    for (let round = 0; round < 200; round++) {
      const found = yield* probe()
      if (found !== undefined) return found
      yield* orch.advance("5 seconds")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** The receipt that the log has `count` events of `type`. */
const told = (orch: TestOrch["Service"], type: string, count: number) =>
  until(orch, `${count} ${type} events`, () => Effect.map(orch.events, (events) => (ofType(events, type).length >= count ? ofType(events, type) : undefined)))

/** The receipt that a round rewrote conflicts.json since it was `before`. */
const roundDone = (orch: TestOrch["Service"], dataDir: string, before: string) =>
  until(orch, "conflicts.json to change", () => Effect.sync(() => (readFileSync(conflictsPath(dataDir), "utf8") !== before ? true : undefined)))
const readFile = (dataDir: string) => JSON.parse(readFileSync(conflictsPath(dataDir), "utf8"))

const terminalOf = (orch: TestOrch["Service"], id: string) => [...orch.runtime.terminals.values()].find((t) => t.spec.sessionId === id)!

describe("ConflictWatch", () => {
  it.effect("two sessions commit conflicting changes: predicted by the rounds at the probe interval, the later session told once, cleared when it moves off", () =>
    Effect.gen(function*() {
      const { path } = yield* repository
      const orch = yield* TestOrch.make({ config: { projects: { app: { repo: "acme/app", path } } } })
      yield* orch.spawn("app", "1")
      yield* orch.advance("1 second")
      yield* orch.spawn("app", "2")
      commitOn(path, "feat/1", "main", { "README.md": "# one\n" })
      commitOn(path, "feat/2", "main", { "README.md": "# two\n", "extra.txt": "x\n" })
      yield* orch.advance("5 seconds")

      const predicted = yield* told(orch, "session.conflict_predicted", 1)
      assert.deepStrictEqual(predicted[0]!.data?.sessions, ["app-1", "app-2"])
      assert.deepStrictEqual([predicted[0]!.data?.kind, predicted[0]!.data?.files], ["conflict", ["README.md"]])
      assert.strictEqual(predicted[0]!.message, "app-1 and app-2 would conflict in README.md")
      // Neither has a PR: the session made later is told, with whom and the files.
      const reactions = yield* told(orch, "reaction.triggered", 1)
      assert.deepStrictEqual(reactions.map((e) => [e.sessionId, e.reaction, e.action]), [["app-2", "predicted-conflict", "send-to-agent"]])
      assert.deepStrictEqual(terminalOf(orch, "app-1").sent, [])
      assert.strictEqual(terminalOf(orch, "app-2").sent.length, 1)
      assert.include(terminalOf(orch, "app-2").sent[0]!, "Collides with: app-1 (branch feat/1)")
      assert.include(terminalOf(orch, "app-2").sent[0]!, "- README.md")
      const file = readFile(orch.dataDir)
      assert.deepStrictEqual(file.predictions.map((p: { a: { sessionId: string }; b: { sessionId: string } }) => [p.a.sessionId, p.b.sessionId]), [[
        "app-1",
        "app-2"
      ]])
      assert.strictEqual(file.pending, undefined, "the change was told whole")

      yield* orch.advance("15 seconds")
      // app-2 drops its change to README.md (a rebase that keeps its other work).
      git(path, "branch", "-f", "feat/2", "main")
      commitOn(path, "feat/2", "feat/2", { "extra.txt": "x\n" })
      yield* orch.advance("5 seconds")
      const cleared = yield* told(orch, "session.conflict_cleared", 1)
      assert.deepStrictEqual(cleared.map((e) => [e.data?.sessions, e.data?.reason]), [[["app-1", "app-2"], "resolved"]])
      assert.deepStrictEqual(readFile(orch.dataDir).predictions, [])
      assert.strictEqual(ofType(yield* orch.events, "session.conflict_predicted").length, 1, "rounds where nothing moved told nothing")
      assert.strictEqual(terminalOf(orch, "app-2").sent.length, 1)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("the default branch as origin has it (fetched by the round); a round a crash cut short: what the log has after its offset is not told again, the rest is", () =>
    Effect.gen(function*() {
      const { root, origin, path } = yield* repository
      const orch = yield* TestOrch.make({ config: { projects: { app: { repo: "acme/app", path } } } })
      yield* orch.spawn("app", "1")
      // Another PR merged on the repohost, pushed from elsewhere: only the round's own fetch brings it here.
      const elsewhere = join(root, "elsewhere")
      execFileSync("git", ["clone", "-q", origin, elsewhere])
      writeFileSync(join(elsewhere, "README.md"), "# theirs\n")
      git(elsewhere, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-qam", "theirs")
      git(elsewhere, "push", "-q", "origin", "main")
      commitOn(path, "feat/1", "main", { "README.md": "# mine\n" })
      yield* orch.advance("5 seconds")
      const predicted = yield* told(orch, "session.conflict_predicted", 1)
      assert.deepStrictEqual(predicted.map((e) => [e.data?.sessions, e.data?.defaultBranch, e.data?.files]), [[["app-1"], "main", ["README.md"]]])
      yield* told(orch, "reaction.triggered", 1)
      assert.strictEqual(terminalOf(orch, "app-1").sent.length, 1, "a conflict with the default branch is its session's to resolve")
      assert.include(terminalOf(orch, "app-1").sent[0], "no longer merges cleanly with the default branch as it is now", "not 'once either merges'")

      // As if the supervisor died after telling, before writing the file without `pending`.
      const log = join(orch.dataDir, "events.jsonl")
      const text = readFileSync(log, "utf8")
      const logOffset = text.lastIndexOf("\n", text.indexOf("session.conflict_predicted")) + 1
      const file = readFile(orch.dataDir)
      const cut = JSON.stringify({ ...file, pending: { logOffset, predicted: file.predictions, cleared: [] } })
      writeFileSync(conflictsPath(orch.dataDir), cut)
      yield* roundDone(orch, orch.dataDir, cut)
      assert.strictEqual(ofType(yield* orch.events, "session.conflict_predicted").length, 1, "the log had it: not again")
      assert.strictEqual(terminalOf(orch, "app-1").sent.length, 1, "the reaction's event was in the log: not sent again")
      assert.strictEqual(readFile(orch.dataDir).pending, undefined)

      // As if it died after writing the file, before telling: the log ends before the change.
      const moved = { ...file.predictions[0], a: { ...file.predictions[0].a, head: "f".repeat(40) } }
      writeFileSync(
        conflictsPath(orch.dataDir),
        JSON.stringify({ ...file, predictions: [moved], pending: { logOffset: readFileSync(log).length, predicted: [moved], cleared: [] } })
      )
      yield* orch.advance("5 seconds")
      const after = yield* told(orch, "session.conflict_predicted", 3)
      const headOf = (event: OrchEvent) => (event.data?.heads as Record<string, string> | undefined)?.["app-1"]
      assert.strictEqual(headOf(after[1]!), "f".repeat(40), "the change the crash left untold")
      assert.notStrictEqual(headOf(after[2]!), "f".repeat(40), "then the real head again")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a PR of the project that merges moves the default branch: the next round fetches it, although its last fetch is fresh", () =>
    Effect.gen(function*() {
      const { root, origin, path } = yield* repository
      // The clock at the real time: the fetch's freshness is FETCH_HEAD's time.
      yield* TestClock.setTime(Date.now())
      const orch = yield* TestOrch.make({ config: { projects: { app: { repo: "acme/app", path } } } })
      yield* orch.spawn("app", "1")
      const two = yield* orch.spawn("app", "2")
      commitOn(path, "feat/1", "main", { "README.md": "# mine\n" })
      yield* until(orch, "the first round's fetch", () => Effect.sync(() => (existsSync(join(path, ".git", "FETCH_HEAD")) ? true : undefined)))
      const elsewhere = join(root, "elsewhere")
      execFileSync("git", ["clone", "-q", origin, elsewhere])
      writeFileSync(join(elsewhere, "README.md"), "# theirs\n")
      git(elsewhere, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-qam", "theirs")
      git(elsewhere, "push", "-q", "origin", "main")
      // Within five minutes of the last fetch, rounds compare with main as fetched: nothing yet.
      for (let round = 0; round < 4; round++) yield* orch.advance("5 seconds")
      assert.deepStrictEqual(ofType(yield* orch.events, "session.conflict_predicted"), [])
      // app-2's PR merges (it was what moved main): the next rounds fetch, well within those five minutes.
      yield* orch.setPullRequest(two.sessionId, { state: "merged" })
      for (let round = 0; round < 16 && ofType(yield* orch.events, "session.conflict_predicted").length === 0; round++) {
        yield* orch.advance("5 seconds")
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
      }
      const predicted = ofType(yield* orch.events, "session.conflict_predicted")
      assert.deepStrictEqual(predicted.map((e) => [e.data?.sessions, e.data?.defaultBranch]), [[["app-1"], "main"]])
      // app-1's own PR merges (resolved on the repohost): nothing is left to predict for it, and nothing new about it.
      yield* orch.setPullRequest("app-1", { state: "merged" })
      const cleared = yield* told(orch, "session.conflict_cleared", 1)
      assert.deepStrictEqual(cleared.map((e) => [e.data?.sessions, e.data?.reason]), [[["app-1"], "ended"]])
      assert.strictEqual(ofType(yield* orch.events, "session.conflict_predicted").length, 1)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("with action notify: a notification about the later session's collision, nothing typed to an agent", () =>
    Effect.gen(function*() {
      const { path } = yield* repository
      const orch = yield* TestOrch.make({
        config: { projects: { app: { repo: "acme/app", path } }, reactions: { "predicted-conflict": { action: "notify" } } }
      })
      yield* orch.spawn("app", "1")
      yield* orch.advance("1 second")
      yield* orch.spawn("app", "2")
      commitOn(path, "feat/1", "main", { "README.md": "# one\n" })
      commitOn(path, "feat/2", "main", { "README.md": "# two\n" })
      const triggered = yield* told(orch, "reaction.triggered", 1)
      assert.deepStrictEqual(triggered.map((e) => [e.sessionId, e.action]), [["app-2", "notify"]])
      const notified = yield* until(orch, "the notification", () =>
        Effect.map(orch.notifications, (all) => {
          const found = all.filter((n) => n.type === "reaction.predicted-conflict")
          return found.length > 0 ? found : undefined
        }))
      assert.deepStrictEqual(notified.map((n) => [n.sessionId, n.priority, n.title]), [["app-2", "warning", "app-2: predicted conflict"]])
      assert.include(notified[0]!.message, "Collides with: app-1 (branch feat/1)")
      assert.deepStrictEqual([terminalOf(orch, "app-1").sent, terminalOf(orch, "app-2").sent], [[], []])
    }).pipe(Effect.provide(NodeServices.layer)))
})
