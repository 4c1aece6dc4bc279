/**
 * Admission as a user meets it, on the default path: the built CLI from the project's directory, a fresh HOME, an
 * empty TMUX_TMPDIR, no ORCH_* variable, the config in the repository's own orchestrator.yaml. A rate-limited
 * session holds queued work on its credential and is told to continue after the project's threshold; queued issues
 * start side by side; intake queues the tracker's labelled issues with their titles.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"

/**
 * The project's config in its repository, each issue's worktree setup (postCreate) saying it began, then waiting
 * until `go` exists; `began` counts those under way. (The orchestrator's own worktree, made at start, goes on.)
 */
const setupsThatWait = (s: Effect.Success<typeof userSandbox>, go: string) =>
  Effect.sync(() => {
    const file = join(s.root, "began")
    s.writeRepoConfig({
      postCreate: [`case "$PWD" in *orchestrator) exit 0;; esac; echo x >> ${file}; while [ ! -e ${go} ]; do sleep 0.05; done`]
    })
    return {
      orch: (...args: Array<string>) => s.orch(args, { cwd: s.repo.path }),
      began: () => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").length : 0)
    }
  })

describe("admission on the default path", () => {
  it.live(
    "an agent reports a rate limit: status says so, queued work waits on the quota, orch tells the agent to continue, the work starts",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        s.writeRepoConfig({ reactions: { "agent-rate-limited": { threshold: "3s" } } })
        const orch = (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })
        assert.strictEqual((yield* orch("start", "app", "--detach", "--no-open")).code, 0)
        assert.strictEqual((yield* orch("spawn", "app", "--task", "Fix the login")).code, 0)
        const worker = s.events().find((e) => e.type === "session.spawned" && e.sessionId !== "app-orchestrator")!.sessionId as string

        // What the agent (or its wrapper) says from inside its session.
        const reported = yield* s.orch(["report", "rate_limited", "--note", "429 Too Many Requests"], { env: { ORCH_SESSION_ID: worker } })
        assert.strictEqual(reported.code, 0, reported.stderr)
        yield* eventually("session.rate_limited", () => s.events().some((e) => e.type === "session.rate_limited" && e.sessionId === worker), 20_000)
        assert.match((yield* orch("status")).stdout, new RegExp(`^${worker} is rate-limited: 429 Too Many Requests; orch tells it to continue at `, "m"))
        assert.strictEqual((yield* orch("queue", "add", "app", "7")).code, 0)
        // The supervisor's admission round says what the entry waits on (admission.json); queue ls tells it.
        const admission = join(s.dataDir, "admission.json")
        yield* eventually("an admission round over the entry", () => existsSync(admission) && readFileSync(admission, "utf8").includes("model quota"), 20_000)
        const waiting = (yield* orch("queue", "ls")).stdout
        assert.include(waiting, `1. q-1 app 7: waiting for the model quota: agent command is rate-limited (${worker})`)

        // After the threshold the agent is told to continue (the loop agent echoes it); its output ends the limit.
        yield* eventually(
          "the continue message in the agent's terminal",
          () => s.tmux("capture-pane", "-p", "-t", `=${worker}:`).includes("got: Your model provider's limit has reset"),
          20_000
        )
        yield* eventually("the queued issue admitted", () => s.events().some((e) => e.type === "queue.admitted"), 30_000)
        assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
      }),
    90_000
  )

  it.live("queued issues start side by side: each worktree's postCreate runs while the others' do", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const go = join(s.root, "go")
      const { orch, began } = yield* setupsThatWait(s, go)
      assert.strictEqual((yield* orch("start", "app", "--detach", "--no-open")).code, 0)
      assert.strictEqual((yield* orch("queue", "add", "app", "1", "2", "3")).code, 0)
      yield* eventually("three worktrees' setups under way at once", () => began() === 3, 30_000)
      writeFileSync(go, "")
      yield* eventually("the three admitted", () => s.events().filter((e) => e.type === "queue.admitted").length === 3, 30_000)
      assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
    }), 90_000)

  it.live(
    "SIGTERM of the supervisor while queued issues start: each start undone before it says it stopped; a start right after waits for it",
    () =>
      Effect.gen(function*() {
        const s = yield* userSandbox
        const { orch, began } = yield* setupsThatWait(s, join(s.root, "never"))
        assert.strictEqual((yield* orch("start", "app", "--detach", "--no-open")).code, 0)
        const { pid } = JSON.parse(readFileSync(join(s.dataDir, "supervisor.json"), "utf8")) as { pid: number }
        assert.strictEqual((yield* orch("queue", "add", "app", "1", "2", "3")).code, 0)
        yield* eventually("three worktrees' setups under way", () => began() === 3, 30_000)
        process.kill(pid, "SIGTERM")
        // At once: it neither joins the supervisor on its way out nor starts beside it, but waits for it to finish.
        const next = yield* orch("start", "app", "--detach", "--no-open")
        assert.strictEqual(next.code, 0, next.stderr)
        assert.match(next.stdout, /^supervisor started \(pid \d+\)/m)
        assert.include(next.stderr, `the supervisor (pid ${pid}) is stopping; waiting for it to finish`)
        const events = s.events()
        const types = events.map((e) => `${e.type} ${e.issueId ?? ""}`.trim())
        const stopped = events.findIndex((e) => e.type === "supervisor.stopped" && e.message === `pid ${pid}`)
        const restarted = events.findIndex((e) => e.type === "supervisor.started" && e.message !== `pid ${pid}`)
        assert.isAbove(restarted, stopped)
        // Every start of the first was undone and its entry put back before it said it stopped; none was admitted.
        assert.deepStrictEqual(types.slice(0, stopped).filter((t) => t.startsWith("session.spawn_failed")).sort(), [
          "session.spawn_failed 1",
          "session.spawn_failed 2",
          "session.spawn_failed 3"
        ])
        assert.notInclude(types.slice(0, stopped), "queue.admitted 1")
        // Nothing of the first after it said it stopped (the second adopts the orchestrator's session as it starts).
        assert.deepStrictEqual(types.slice(stopped + 1, restarted).filter((t) => /^(queue|session\.spawn)/.test(t)), [])
        assert.strictEqual((yield* orch("stop", "--kill-sessions")).code, 0)
      }),
    90_000
  )

  it.live("intake: the tracker's labelled issues are queued, with their titles", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const wanted = emulator.addIssue("acme/app", { title: "Fix the login", labels: ["orch"] })
      emulator.addIssue("acme/app", { title: "Not for agents", labels: ["bug"] })
      // maxSessions 0: nothing starts, so what intake queued stays where it can be seen.
      s.writeRepoConfig({
        tracker: { plugin: "repohost", apiUrl: emulator.url },
        maxSessions: 0,
        intake: { labels: ["orch"], pollIntervalMs: 1000 }
      })
      const orch = (...args: Array<string>) => s.orch(args, { cwd: s.repo.path })
      assert.strictEqual((yield* orch("start", "app", "--detach", "--no-open")).code, 0)
      yield* eventually("intake's entry", () => s.events().some((e) => e.type === "queue.added"), 20_000)
      const ls = (yield* orch("queue", "ls")).stdout
      assert.match(ls, new RegExp(`^1\\. q-1 app ${wanted} "Fix the login": waiting for a free session in app`, "m"))
      assert.notInclude(ls, "Not for agents")
      assert.strictEqual((yield* orch("stop")).code, 0)
    }), 60_000)
})
