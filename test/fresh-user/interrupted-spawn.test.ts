/**
 * A spawn killed half-way, as a new user meets it: the packed `orch`, an empty HOME, an empty TMUX_TMPDIR, no ORCH_*
 * variable, the config in the repository's orchestrator.yaml. The project's `postCreate` blocks (it writes a marker,
 * then sleeps), and the `orch spawn` process is killed with a real `kill -9` once the marker is there: the agent never
 * started. Every list shows the spawn `interrupted`; with no supervisor the listing command undoes it (rescuing what
 * was written in the worktree first) and says so; with a supervisor running, its probe cycle undoes it unasked.
 */
import { assert, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { blockedPostCreate, BLOCKING_POST_CREATE } from "../support/blocking-post-create.ts"
import { eventually } from "../support/eventually.ts"
import { freshUser } from "../support/fresh-user.ts"
import { ECHO_AGENT } from "../support/orch-sandbox.ts"
import { type PackedInstall, packedInstall } from "../support/packed-install.ts"
import { freePorts } from "../support/ports.ts"

class Installed extends Context.Service<Installed, PackedInstall>()("test/Installed") {}

type User = Effect.Success<ReturnType<typeof freshUser>>

/** The project in the repository's own orchestrator.yaml, as a user writes it (its postCreate blocks, unless given). */
const writeConfig = (u: User, postCreate: ReadonlyArray<string> = [BLOCKING_POST_CREATE]) =>
  Effect.gen(function*() {
    const [port, terminalPort, directTerminalPort] = yield* freePorts(3)
    writeFileSync(
      join(u.repo, "orchestrator.yaml"),
      stringify({
        port,
        terminalPort,
        directTerminalPort,
        projects: {
          app: {
            repo: "acme/app",
            path: u.repo,
            agent: "command",
            agentConfig: { command: ECHO_AGENT },
            tracker: "none",
            scm: "none",
            postCreate
          }
        }
      })
    )
  })

/**
 * `orch spawn app <issue>` in the repository, `kill -9`ed once its postCreate runs in the worktree of `sessionId`;
 * `before` runs in between (the agent, had it started, writing in the worktree). The blocked postCreate is ended
 * with the test.
 */
const spawnKilledInPostCreate = (u: User, issue: string, sessionId: string, before: (worktree: string) => Effect.Effect<void> = () => Effect.void) =>
  Effect.gen(function*() {
    const worktree = join(u.dataDir, "worktrees", "app", sessionId)
    const child: ChildProcess = spawn("orch", ["spawn", "app", issue], { cwd: u.repo, env: u.env, stdio: "ignore" })
    const exited = Effect.callback<void>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
    const postCreate = yield* eventually(`${sessionId}'s postCreate to start`, () => blockedPostCreate(u.dataDir, "app", sessionId), 30_000)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        try {
          process.kill(postCreate, "SIGKILL")
        } catch {
          // ended already
        }
      })
    )
    assert.isTrue(existsSync(worktree), "the worktree is made")
    yield* before(worktree)
    const spawner = child.pid!
    process.kill(spawner, "SIGKILL")
    yield* exited
    assert.strictEqual(child.signalCode, "SIGKILL")
    return { worktree, spawner }
  })

/**
 * `orch <args>` (a spawn) in the repository, sent SIGINT (Ctrl-C) once its postCreate runs: what it printed and its
 * exit code, with the session the spawn had reserved. The blocked postCreate is ended with the test.
 */
const spawnInterruptedInPostCreate = (u: User, args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const child: ChildProcess = spawn("orch", args, { cwd: u.repo, env: u.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk) => void (stdout += chunk))
    child.stderr!.on("data", (chunk) => void (stderr += chunk))
    const exited = Effect.callback<number | null>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode))
      child.once("close", (code) => resume(Effect.succeed(code)))
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
    const worktrees = join(u.dataDir, "worktrees", "app")
    const sessionId = yield* eventually(`${args.join(" ")}: its postCreate to start`, () =>
      existsSync(worktrees) ? readdirSync(worktrees).find((name) => name.startsWith("started-app-"))?.slice("started-".length) : undefined, 30_000)
    const postCreate = blockedPostCreate(u.dataDir, "app", sessionId)!
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        try {
          process.kill(postCreate, "SIGKILL")
        } catch {
          // ended already
        }
      })
    )
    process.kill(child.pid!, "SIGINT")
    const code = yield* exited
    return { code, stdout, stderr, sessionId, worktree: join(worktrees, sessionId) }
  })

const hasRef = (u: User, ref: string) => {
  try {
    u.git(u.repo, "rev-parse", "--verify", "--quiet", ref)
    return true
  } catch {
    return false
  }
}

/** What a spawn of issue `issue` as `sessionId` left after it was undone: nothing but what holds work. */
const assertUndone = (u: User, sessionId: string, worktree: string) => {
  assert.isFalse(existsSync(worktree), "its worktree is gone")
  assert.notInclude(u.git(u.repo, "worktree", "list"), worktree)
  assert.isFalse(existsSync(join(u.dataDir, "sessions", "app", sessionId)), "its session directory is released")
  assert.notInclude(u.sessions(), sessionId, "no terminal was ever started")
}

// Live clock (no TestClock): every wait here is on a real process.
layer(Layer.effect(Installed, packedInstall), { timeout: "300 seconds", excludeTestServices: true })("an interrupted spawn, from the packed install", (it) => {
  it.effect("no supervisor: orch status and orch session ls show it interrupted, undo it (rescuing what was written) and say so", () =>
    Effect.gen(function*() {
      const u = yield* freshUser(yield* Installed)
      yield* writeConfig(u)

      // Nothing written: the worktree and the branch the spawn made go.
      const first = yield* spawnKilledInPostCreate(u, "1", "app-1")
      const listed = yield* u.orch(["status", "--json"])
      assert.strictEqual(listed.code, 0, listed.stderr)
      const rows = JSON.parse(listed.stdout) as Array<{ sessionId: string; status: string; recorded: boolean }>
      assert.deepStrictEqual(rows.map((r) => [r.sessionId, r.status, r.recorded]), [["app-1", "interrupted", false]])
      assert.strictEqual(
        listed.stderr,
        `orch: undid app-1, a spawn of issue 1 interrupted when its process (${first.spawner}) died: removed its worktree, deleted its branch feat/1\n`
      )
      assertUndone(u, "app-1", first.worktree)
      assert.isFalse(hasRef(u, "refs/heads/feat/1"), "the branch it made held nothing")
      assert.deepInclude(u.events().at(-1), { type: "session.reconciled", sessionId: "app-1", issueId: "1" })
      assert.strictEqual((yield* u.orch(["status"])).stdout, "No sessions. Start one with `orch spawn app --task \"<what to do>\"`.\n")

      // A file written in the worktree: rescued before the worktree goes; the branch (no commit on it) goes too.
      const second = yield* spawnKilledInPostCreate(u, "2", "app-1", (worktree) => Effect.sync(() => writeFileSync(join(worktree, "notes.txt"), "half-done\n")))
      const ls = yield* u.orch(["session", "ls"])
      assert.strictEqual(ls.code, 0, ls.stderr)
      assert.match(ls.stdout, /^app-1\s+2\s+interrupted\s+-\s/m)
      assert.include(
        ls.stdout,
        `\nundid app-1, a spawn of issue 2 interrupted when its process (${second.spawner}) died: removed its worktree, deleted its branch feat/2; ` +
          "what was written in its worktree is saved in refs/orch/rescue/app-1\n"
      )
      assertUndone(u, "app-1", second.worktree)
      assert.strictEqual(u.git(u.repo, "show", "refs/orch/rescue/app-1:notes.txt"), "half-done")
      assert.isFalse(hasRef(u, "refs/heads/feat/2"))

      // A commit on the branch: it holds work, and stays (its worktree's state rescued as well).
      const third = yield* spawnKilledInPostCreate(u, "3", "app-2", (worktree) =>
        Effect.sync(() => {
          writeFileSync(join(worktree, "done.txt"), "done\n")
          u.git(worktree, "add", "done.txt")
          u.git(worktree, "-c", "user.name=Agent", "-c", "user.email=agent@example.com", "commit", "-qm", "part one")
        }))
      const status = yield* u.orch(["status"])
      assert.strictEqual(status.code, 0, status.stderr)
      assert.match(status.stdout, /^app-2\s+3\s+feat\/3\s+interrupted\s+unknown\s/m)
      assert.include(
        status.stdout,
        `\nundid app-2, a spawn of issue 3 interrupted when its process (${third.spawner}) died: removed its worktree; ` +
          "what was written in its worktree is saved in refs/orch/rescue/app-2\n"
      )
      assertUndone(u, "app-2", third.worktree)
      assert.strictEqual(u.git(u.repo, "show", "feat/3:done.txt"), "done", "the branch holding work stays")
      assert.strictEqual(u.git(u.repo, "show", "refs/orch/rescue/app-2:done.txt"), "done")
      assert.deepStrictEqual(JSON.parse((yield* u.orch(["status", "--json"])).stdout), [])

      // Two commands find it at once: it is undone once, by one of them; neither fails.
      const fourth = yield* spawnKilledInPostCreate(u, "4", "app-3")
      const before = u.events().length
      const both = yield* Effect.all([u.orch(["status"]), u.orch(["session", "ls"])], { concurrency: "unbounded" })
      for (const run of both) assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(both.map((run) => run.stderr), ["", ""])
      assert.strictEqual(both.filter((run) => run.stdout.includes("\nundid app-3, a spawn of issue 4")).length, 1, both.map((r) => r.stdout).join("\n"))
      assert.deepStrictEqual(u.events().slice(before).filter((e) => e.type === "session.reconciled").map((e) => e.sessionId), ["app-3"])
      assertUndone(u, "app-3", fourth.worktree)
    }), 180_000)

  it.effect("a supervisor running undoes it within a probe cycle, with no command run", () =>
    Effect.gen(function*() {
      const u = yield* freshUser(yield* Installed)
      yield* writeConfig(u)
      // The spawn runs in its own `orch spawn` process (no supervisor yet); a supervisor starts while it is under way.
      const spawned = yield* spawnKilledInPostCreate(u, "1", "app-1", () =>
        Effect.gen(function*() {
          const started = yield* u.orch(["start", "app", "--detach", "--no-open"])
          assert.strictEqual(started.code, 0, started.stderr)
          // Its process lives: the spawn is under way, and the supervisor leaves it to that process.
          const rows = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ sessionId: string; status: string }>
          assert.strictEqual(rows.find((r) => r.sessionId === "app-1")?.status, "spawning")
        }))
      const supervisor = u.supervisorPid()!
      assert.isDefined(supervisor)

      const reconciled = yield* eventually("session.reconciled from the supervisor", () =>
        u.events().find((e) => e.type === "session.reconciled" && e.sessionId === "app-1"), 20_000)
      assert.strictEqual(
        reconciled.message,
        `undid app-1, a spawn of issue 1 interrupted when its process (${spawned.spawner}) died: removed its worktree, deleted its branch feat/1`
      )
      assert.strictEqual(u.supervisorPid(), supervisor, "undone by the running supervisor")
      assertUndone(u, "app-1", spawned.worktree)
      assert.isFalse(hasRef(u, "refs/heads/feat/1"))
      assert.notInclude((yield* u.orch(["status"])).stdout, "app-1 ")
      const stopped = yield* u.orch(["stop", "--kill-sessions"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
    }), 120_000)
  it.effect(
    "a batch-spawn killed with kill -9 half-way, no supervisor: every issue it took is queued, and orch start starts each once",
    () =>
      Effect.gen(function*() {
        const u = yield* freshUser(yield* Installed)
        yield* writeConfig(u)
        const worktrees = join(u.dataDir, "worktrees", "app")
        // Each blocked postCreate is ended with the test.
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const name of existsSync(worktrees) ? readdirSync(worktrees) : []) {
              const pid = name.startsWith("started-") ? blockedPostCreate(u.dataDir, "app", name.slice("started-".length)) : undefined
              try {
                if (pid !== undefined) process.kill(pid, "SIGKILL")
              } catch {
                // ended already
              }
            }
          })
        )
        const child: ChildProcess = spawn("orch", ["batch-spawn", "app", "1", "2", "3", "4", "5", "6"], {
          cwd: u.repo,
          env: u.env,
          stdio: ["ignore", "pipe", "pipe"]
        })
        let said = ""
        child.stdout!.on("data", (chunk) => void (said += chunk))
        child.stderr!.on("data", (chunk) => void (said += chunk))
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
        const exited = Effect.callback<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
        })
        yield* eventually(
          "a spawn of the batch in its postCreate",
          () => existsSync(worktrees) && readdirSync(worktrees).some((f) => f.startsWith("started-")),
          30_000
        ).pipe(
          // Under load (over 4 × cores) admission queues the whole batch and starts nothing: what it printed says so.
          Effect.tapError(() => Effect.sync(() => console.log(`orch batch-spawn printed:\n${said}`)))
        )
        process.kill(child.pid!, "SIGKILL")
        yield* exited

        // Right after: all six are in the queue; those it was starting are shown cut short, the others waiting.
        type Entry = { issue: string; admitting?: { sessionId: string } }
        const listed = JSON.parse((yield* u.orch(["queue", "ls", "--json"])).stdout) as Array<Entry>
        assert.deepStrictEqual(listed.map((e) => e.issue).sort(), ["1", "2", "3", "4", "5", "6"])
        const cut = listed.filter((e) => e.admitting !== undefined)
        assert.isAbove(cut.length, 0)
        const ls = (yield* u.orch(["queue", "ls"])).stdout
        for (const entry of cut) assert.include(ls, `its start as ${entry.admitting!.sessionId} was cut short (its orch process is gone)`)

        // The supervisor recovers first (the starts cut short are undone, their entries wait again), then starts each once.
        yield* writeConfig(u, [])
        const started = yield* u.orch(["start", "app", "--detach", "--no-open"])
        assert.strictEqual(started.code, 0, started.stderr)
        yield* Effect.addFinalizer(() => Effect.asVoid(u.orch(["stop", "--kill-sessions"])))
        yield* eventually("all six admitted", () => u.events().filter((e) => e.type === "queue.admitted").length === 6, 60_000)
        const rows = JSON.parse((yield* u.orch(["status", "--json"])).stdout) as Array<{ issueId: string; role?: string; status: string }>
        const workers = rows.filter((r) => r.role === undefined)
        assert.deepStrictEqual(workers.map((r) => r.issueId).sort(), ["1", "2", "3", "4", "5", "6"])
        assert.deepStrictEqual(JSON.parse((yield* u.orch(["queue", "ls", "--json"])).stdout), [])
        assert.strictEqual(u.events().filter((e) => e.type === "queue.recovered").length, cut.length)
      }),
    180_000
  )

  it.effect("Ctrl-C on a spawn says it was undone: an issue's and a task's, without and with a supervisor", () =>
    Effect.gen(function*() {
      const u = yield* freshUser(yield* Installed)
      yield* writeConfig(u)
      const undone = (what: string) => `orch: interrupted: ${what} was stopped and what it had made undone; no session was started\n`
      const interrupt = (args: ReadonlyArray<string>, what: string) =>
        Effect.gen(function*() {
          const run = yield* spawnInterruptedInPostCreate(u, args)
          assert.deepStrictEqual([run.code, run.stdout, run.stderr], [130, "", undone(what)], args.join(" "))
          assertUndone(u, run.sessionId, run.worktree)
        })

      // No supervisor: the spawn runs in `orch spawn` itself, and its own undo is what it reports.
      yield* interrupt(["spawn", "app", "1"], "the spawn of issue 1 in app")
      yield* interrupt(["spawn", "app", "--task", "Slow work"], "the spawn of the task \"Slow work\"")

      // A supervisor runs the spawn: hanging up makes it undo it, and its receipt is matched (the plain form takes
      // the fast path, the task the full CLI).
      const started = yield* u.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      yield* interrupt(["spawn", "app", "2"], "the spawn of issue 2 in app")
      yield* interrupt(["spawn", "app", "--task", "Slow work"], "the spawn of the task \"Slow work\"")
      const stopped = yield* u.orch(["stop", "--kill-sessions"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
    }), 150_000)

  it.effect("Ctrl-C on a batch-spawn says what became of each issue, without and with a supervisor", () =>
    Effect.gen(function*() {
      const u = yield* freshUser(yield* Installed)
      yield* writeConfig(u)
      const worktrees = join(u.dataDir, "worktrees", "app")
      // The batch's other starts block too (a supervisor admits returned entries again, and they block again): each is
      // ended, and its marker removed, between the two halves and with the test.
      const endBlocked = Effect.sync(() => {
        for (const name of existsSync(worktrees) ? readdirSync(worktrees) : []) {
          const pid = name.startsWith("started-") ? blockedPostCreate(u.dataDir, "app", name.slice("started-".length)) : undefined
          try {
            if (pid !== undefined) process.kill(pid, "SIGKILL")
          } catch {
            // ended already
          }
        }
      })
      yield* Effect.addFinalizer(() => endBlocked)
      const queued = Effect.map(u.orch(["queue", "ls", "--json"]), (ls) => (JSON.parse(ls.stdout) as Array<{ issue: string }>).map((e) => e.issue).sort())

      // No supervisor: the batch runs in `orch batch-spawn` itself; its starts are undone and their entries wait.
      const here = yield* spawnInterruptedInPostCreate(u, ["batch-spawn", "app", "1", "2"])
      assert.deepStrictEqual([here.code, here.stdout], [130, ""])
      assert.strictEqual(
        here.stderr,
        "orch: batch-spawn interrupted: 2 wait in the queue (1, 2) and start on their own once orch's supervisor runs (`orch start`); " +
          "`orch queue ls` shows them\n"
      )
      assert.deepStrictEqual(yield* queued, ["1", "2"])
      for (const issue of ["1", "2"]) assert.strictEqual((yield* u.orch(["queue", "rm", issue])).code, 0)
      yield* endBlocked

      // A supervisor runs it (the fast path): hanging up makes it undo what it was making; its entries wait again.
      const started = yield* u.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      yield* Effect.addFinalizer(() => Effect.asVoid(u.orch(["stop", "--kill-sessions"])))
      const there = yield* spawnInterruptedInPostCreate(u, ["batch-spawn", "app", "3", "4"])
      assert.deepStrictEqual([there.code, there.stdout], [130, ""])
      assert.strictEqual(
        there.stderr,
        "orch: batch-spawn interrupted: 2 wait in the queue (3, 4) and start on their own while orch's supervisor runs; `orch queue ls` shows them\n"
      )
      assert.deepStrictEqual(yield* queued, ["3", "4"])
    }), 150_000)
})
