import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn as spawnProcess } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { ISSUE_ID_EXPECTED } from "../../src/domain/issue-id.ts"
import { ORCH_BIN, runOrchAsync } from "../support/cli.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"

describe("the work queue (built CLI, real git and tmux)", () => {
  it.live(
    "maxSessions 2: batch-spawn of 4 starts 2 and queues 2; status shows why; a killed session lets the supervisor admit the next",
    () =>
      Effect.gen(function*() {
        const s = yield* sandbox({ config: { maxSessions: 2 } })
        const batch = yield* s.orch(["batch-spawn", "app", "1", "2", "3", "4"])
        assert.strictEqual(batch.code, 0, batch.stderr)
        assert.include(batch.stdout, "1: created app-1")
        assert.include(batch.stdout, "2: created app-2")
        assert.include(batch.stdout, "3: queued as q-3, position 1 (waiting for a free session: 2 running, maxSessions 2)")
        assert.include(batch.stdout, "4: queued as q-4, position 2 (waiting for a free session: 2 running, maxSessions 2)")
        assert.include(batch.stdout, "created 2, skipped 0, failed 0, queued 2")
        // The whole batch was written to the queue first; what started left it once its session was whole.
        assert.deepStrictEqual(s.events().filter((e) => e.type === "queue.added").map((e) => e.issueId), ["1", "2", "3", "4"])
        assert.deepStrictEqual(s.events().filter((e) => e.type === "queue.admitted").map((e) => [e.issueId, e.sessionId]).sort(), [["1", "app-1"], [
          "2",
          "app-2"
        ]])

        const idle = yield* s.orch(["status"])
        assert.include(idle.stdout, "Queued (2):")
        assert.include(idle.stdout, "1. q-3 app 3: waiting for a supervisor: `orch start` admits queued work")

        assert.strictEqual((yield* s.orch(["start", "app", "--detach"])).code, 0)
        // Receipt: the supervisor's admission round wrote what the queue waits on.
        yield* eventually("the supervisor's admission round", () => existsSync(join(s.dataDir, "admission.json")), 20_000)
        const supervised = yield* s.orch(["status"])
        assert.include(supervised.stdout, "1. q-3 app 3: waiting for a free session: 2 running, maxSessions 2")
        const listed = JSON.parse((yield* s.orch(["queue", "ls", "--json"])).stdout) as Array<{ id: string; position: number; reason: string }>
        assert.deepStrictEqual(listed.map((e) => [e.id, e.position]), [["q-3", 1], ["q-4", 2]])

        assert.strictEqual((yield* s.orch(["session", "kill", "app-1"])).code, 0)
        const admitted = yield* eventually("queue.admitted for q-3", () => s.events().find((e) => e.type === "queue.admitted" && e.issueId === "3"), 30_000)
        assert.strictEqual(admitted.issueId, "3")
        assert.strictEqual(admitted.sessionId, "app-3")
        const after = JSON.parse((yield* s.orch(["queue", "ls", "--json"])).stdout) as Array<{ id: string; position: number }>
        assert.deepStrictEqual(after.map((e) => [e.id, e.position]), [["q-4", 1]])
      }),
    120_000
  )

  it.live("queue add, ls, rm without a supervisor: priority first, then arrival; unknown entries say what to do", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      assert.strictEqual((yield* s.orch(["queue", "add", "app", "5", "6"])).code, 0)
      const urgent = yield* s.orch(["queue", "add", "app", "7", "--priority", "2"])
      assert.include(urgent.stdout, "7: queued as q-3, position 1")
      const again = yield* s.orch(["queue", "add", "app", "5"])
      assert.include(again.stdout, "5: already queued as q-1, position 2")
      const ls = yield* s.orch(["queue", "ls"])
      assert.include(ls.stdout, "1. q-3 app 7 (priority 2): waiting for a supervisor")
      assert.include(ls.stdout, "3. q-2 app 6")
      assert.include((yield* s.orch(["queue", "rm", "6"])).stdout, "removed q-2 (app 6)")
      // Several at once, in the order given; the first that cannot be removed stops it and says why.
      assert.strictEqual((yield* s.orch(["queue", "add", "app", "10", "11"])).code, 0)
      const several = yield* s.orch(["queue", "rm", "10", "q-99", "11"])
      assert.strictEqual(several.code, 1)
      assert.include(several.stdout, "removed q-4 (app 10)")
      assert.include(several.stderr, "nothing in the queue is q-99")
      assert.include((yield* s.orch(["queue", "ls"])).stdout, "app 11")
      assert.strictEqual((yield* s.orch(["queue", "rm", "11"])).code, 0)
      const missing = yield* s.orch(["queue", "rm", "q-9"])
      assert.strictEqual(missing.code, 1)
      assert.include(missing.stderr, "nothing in the queue is q-9")
      const unknown = yield* s.orch(["queue", "add", "nope", "1"])
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "no project \"nope\"")
      // What could never start is refused now, not dropped later: an empty id, an issue a live session works.
      const empty = yield* s.orch(["queue", "add", "app", "9", " "])
      assert.strictEqual(empty.code, 2)
      assert.strictEqual(empty.stderr, `orch: " " is not an issue id here: expected ${ISSUE_ID_EXPECTED}\n`)
      // An issue a person starts with `orch spawn` leaves the queue.
      assert.strictEqual((yield* s.orch(["queue", "add", "app", "8"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "8"])).code, 0)
      assert.notInclude((yield* s.orch(["queue", "ls"])).stdout, "app 8")
      const worked = yield* s.orch(["queue", "add", "app", "#8"])
      assert.strictEqual(worked.code, 1)
      assert.include(worked.stderr, "issue 8 already has a live session app-1")
      assert.deepStrictEqual(s.events().filter((e) => e.type.startsWith("queue.")).map((e) => e.type), [
        "queue.added",
        "queue.added",
        "queue.added",
        "queue.dropped",
        "queue.added",
        "queue.added",
        "queue.dropped",
        "queue.dropped",
        "queue.added",
        "queue.dropped"
      ])
    }), 60_000)

  it.live("queued work whose spawn fails here waits (held, told once); fixing the config starts it at once", () =>
    Effect.gen(function*() {
      // Broken for workers (the orchestrator's worktree still comes up, so orch start works).
      const s = yield* sandbox({ project: { postCreate: ["case \"$PWD\" in *orchestrator) ;; *) echo setting up; exit 1;; esac"] } })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      yield* Effect.addFinalizer(() => Effect.asVoid(s.orch(["stop", "--kill-sessions"])))
      assert.strictEqual((yield* s.orch(["queue", "add", "app", "1", "2"])).code, 0)
      yield* eventually("this machine held back for app", () => s.events().some((e) => e.type === "queue.held"), 20_000)
      const ls = (yield* s.orch(["queue", "ls"])).stdout
      assert.match(
        ls,
        /^1\. q-1 app 1: waiting for a host: this machine: a spawn there failed \(creating the workspace: .*exit 1: setting up; orch tries again at \d\d?:\d\d( UTC)?\)$/m
      )
      assert.lengthOf(s.events().filter((e) => e.type === "queue.held"), 1, "told once, not per entry")
      assert.deepStrictEqual(s.events().filter((e) => e.type === "queue.dropped"), [])
      // The fix: the config no longer fails. The hold ends with the reload, not a minute later.
      s.writeConfig({ postCreate: [] })
      yield* eventually("both admitted", () => s.events().filter((e) => e.type === "queue.admitted").length === 2, 20_000)
      assert.include(s.events().find((e) => e.type === "queue.resumed")?.message, "its config changed")
    }), 60_000)

  it.live("queue add asks the tracker: a known issue is queued with its title, one it does not have is refused", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const known = emulator.addIssue("acme/app", { title: "Fix the login" })
      s.writeConfig({ tracker: { plugin: "repohost", apiUrl: emulator.url } })
      const added = yield* s.orch(["queue", "add", "app", String(known)])
      assert.strictEqual(added.code, 0, added.stderr)
      assert.include((yield* s.orch(["queue", "ls"])).stdout, `1. q-1 app ${known} "Fix the login": waiting for a supervisor`)
      const missing = yield* s.orch(["queue", "add", "app", "999", String(known)])
      assert.strictEqual(missing.code, 1, missing.stdout)
      assert.strictEqual(missing.stderr, "orch: issue #999 not found in acme/app\n")
      assert.strictEqual(JSON.parse((yield* s.orch(["queue", "ls", "--json"])).stdout).length, 1, "nothing of a refused add is queued")
    }), 60_000)

  it.live("concurrent adds from several processes all land; kill -9 mid-write leaves a readable queue", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const run = (issue: string) =>
        spawnProcess(process.execPath, [ORCH_BIN, "queue", "add", "app", issue], {
          cwd: s.root,
          env: { PATH: process.env.PATH ?? "", ...s.env },
          stdio: "ignore"
        })
      const children = Array.from({ length: 8 }, (_, i) => run(`${100 + i}`))
      yield* Effect.promise(() => Promise.all(children.map((c) => new Promise((resolve) => c.on("exit", resolve)))))
      const listed = JSON.parse((yield* s.orch(["queue", "ls", "--json"])).stdout) as Array<{ issue: string; position: number }>
      assert.deepStrictEqual(listed.map((e) => e.issue).sort(), Array.from({ length: 8 }, (_, i) => `${100 + i}`))
      assert.deepStrictEqual(listed.map((e) => e.position), [1, 2, 3, 4, 5, 6, 7, 8])

      // Killed at staggered moments of their run: whatever each got done, the queue reads.
      const doomed = Array.from({ length: 6 }, (_, i) => run(`${200 + i}`))
      yield* Effect.promise(() =>
        Promise.all(doomed.map((c, i) =>
          new Promise((resolve) => {
            setTimeout(() => c.kill("SIGKILL"), 150 + i * 60)
            c.on("exit", resolve)
          })
        ))
      )
      const survived = yield* s.orch(["queue", "ls", "--json"])
      assert.strictEqual(survived.code, 0, survived.stderr)
      const entries = JSON.parse(survived.stdout) as Array<{ issue: string }>
      assert.includeMembers(entries.map((e) => e.issue), listed.map((e) => e.issue))
      // A queue file that does not decode is an error, never an empty queue.
      writeFileSync(join(s.dataDir, "queue.json"), "{not json")
      const broken = yield* s.orch(["queue", "ls"])
      assert.strictEqual(broken.code, 1)
      assert.include(broken.stderr, "queue.json")
    }), 60_000)

  it.live("a fresh user (empty HOME and TMUX_TMPDIR, no ORCH_* variable): queue add, ls, rm and the maxSessions key work", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ config: { maxSessions: 1 } })
      const tmuxTmpdir = join(s.root, "tmux-tmp")
      mkdirSync(tmuxTmpdir, { mode: 0o700 })
      // The config is found from the directory (s.root holds orchestrator.yaml); nothing names it.
      const orch = (args: ReadonlyArray<string>) => runOrchAsync(args, { cwd: s.root, env: { HOME: join(s.root, "fresh-home"), TMUX_TMPDIR: tmuxTmpdir } })
      const added = yield* orch(["queue", "add", "app", "8"])
      assert.strictEqual(added.code, 0, added.stderr)
      assert.include(added.stdout, "8: queued as q-1, position 1")
      assert.include((yield* orch(["queue", "ls"])).stdout, "1. q-1 app 8: waiting for a supervisor")
      assert.include((yield* orch(["status"])).stdout, "1. q-1 app 8: waiting for a supervisor")
      assert.include((yield* orch(["queue", "rm", "q-1"])).stdout, "removed q-1 (app 8)")
      assert.include((yield* orch(["queue", "ls"])).stdout, "The queue is empty.")
      const help = yield* orch(["queue", "--help"])
      assert.strictEqual(help.code, 0)
      assert.include(help.stdout, "add")
    }), 60_000)

  it.live("a project's maxSessions holds back that project's batch", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { maxSessions: 1 } })
      const batch = yield* s.orch(["batch-spawn", "app", "1", "2"])
      assert.strictEqual(batch.code, 0, batch.stderr)
      assert.include(batch.stdout, "2: queued as q-2, position 1 (waiting for a free session in app: 1 running, its maxSessions 1)")
    }), 60_000)
})
