/**
 * The real Codex CLI (pinned in devDependencies) in tmux under a real supervisor, against the scripted Responses
 * API server. One sandbox: the orchestrator and a worker in skip mode (prompt, task, a commit through Codex's
 * shell tool, ready read off the screen, a sent message, kill and restore into the same conversation), then a
 * worker in `default` mode whose command waits for approval.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { git } from "../support/repo.ts"
import { codexAgent, writeCodexHome } from "./codex-env.ts"
import { startResponsesServer } from "./responses-server.ts"

/** The native Codex process in a tmux pane (under the pane's shell and the npm launcher). */
const codexPid = (socket: string, session: string): number => {
  const pane = Number(execFileSync("tmux", ["-S", socket, "display-message", "-p", "-t", `=${session}:`, "#{pane_pid}"], { encoding: "utf8" }).trim())
  const children = (pid: number): Array<number> =>
    readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
    )
  const queue = [pane]
  while (queue.length > 0) {
    const pid = queue.shift()!
    if (readlinkSync(`/proc/${pid}/exe`).endsWith("/bin/codex")) return pid
    queue.push(...children(pid))
  }
  throw new Error(`no codex process in ${session}`)
}

/** Waits for a text on a session's screen; a timeout shows the screen it saw. */
const onScreen = (s: { screen: (id: string) => string }, id: string, text: string, ms: number) =>
  eventually(`"${text}" on ${id}'s screen`, () => s.screen(id).includes(text), ms).pipe(
    Effect.mapError((error) => new Error(`${error.message}; it shows:\n${s.screen(id).trimEnd()}`))
  )

describe("the real Codex CLI under orch", () => {
  it.live("spawn, a command through its shell tool, ready from the screen, send, exit and restore, an approval", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ config: { readyThresholdMs: 3000, pollIntervalMs: 1000 } })
      const model = yield* Effect.acquireRelease(Effect.promise(() => startResponsesServer()), (m) => Effect.promise(() => m.close()))
      // The tracker: an issue with a body makes the task several lines long (a bracketed paste into Codex).
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() => startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }] })),
        (e) => Effect.promise(() => e.close())
      )
      const issue = emulator.addIssue("acme/app", { title: "Write the answer", body: "The answer goes in answer.txt.\nCommit it." })
      const worktree = (id: string) => join(s.dataDir, "worktrees", "app", id)
      model.script([
        {
          when: "Write the answer",
          steps: [{ shell: ["printf 'codex\\n' > answer.txt && git add answer.txt && git commit -qm 'Answer from codex' && echo committed"] }, {
            text: "Committed the answer."
          }]
        },
        { when: "PING-AFTER", steps: [{ text: "PONG-FROM-MODEL" }] },
        { when: "ARE-YOU-BACK", steps: [{ text: "Back, same conversation." }] },
        {
          when: "Touch a file",
          steps: [{ shell: [{ cmd: "touch approved-file && echo touched", justification: "Create approved-file?" }] }, { text: "Touched." }]
        }
      ])
      // Trusting the repository covers orch's worktrees of it.
      writeCodexHome(s.home, model.url, [s.repo.path])
      s.writeConfig({ ...codexAgent("skip"), tracker: { plugin: "repohost", apiUrl: emulator.url } })

      // The orchestrator: its system prompt (as developer instructions) and task reach the model.
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      const orchestratorFirst = yield* eventually("the orchestrator's first model call", () => model.mainRequests(worktree("app-orchestrator"))[0], 30_000)
      assert.isTrue(orchestratorFirst.developerTexts.some((t) => t.startsWith("You are the orchestrator of app (acme/app)")))
      assert.include(orchestratorFirst.userTexts.at(-1), "Read `orch status --json`")

      // A worker: its prompt and task reach the model; it commits through Codex's shell tool; the answer shows.
      const spawned = yield* s.orch(["spawn", "app", String(issue)])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      const first = yield* eventually("the worker's first model call", () => model.mainRequests(worktree("app-1"))[0], 30_000)
      assert.isTrue(
        first.developerTexts.some((t) => t.startsWith("You are a coding agent working on one issue of acme/app, in session app-1 managed by orch."))
      )
      assert.include(first.userTexts.at(-1), `Work on issue #${issue} of acme/app: Write the answer`)
      assert.include(first.userTexts.at(-1), "The answer goes in answer.txt.\nCommit it.", "the whole multi-line task, as one message")
      const output = yield* eventually(
        "the command's output at the model",
        () => model.mainRequests(worktree("app-1")).flatMap((r) => r.toolOutputs)[0],
        30_000
      )
      assert.include(output, "Process exited with code 0")
      assert.include(output, "committed")
      assert.strictEqual(git(worktree("app-1"), "log", "-1", "--format=%s"), "Answer from codex")
      yield* onScreen(s, "app-1", "Committed the answer.", 20_000)
      // No hooks: ready comes from the screen, then idle after readyThresholdMs.
      yield* eventually("ready after the turn", () => s.record("app-1").activity === "ready", 20_000)
      yield* eventually("idle after readyThresholdMs", () => s.record("app-1").activity === "idle", 20_000)

      // orch send is a user turn.
      assert.strictEqual((yield* s.orch(["send", "app-1", "PING-AFTER the commit"])).code, 0)
      yield* eventually(
        "the sent message at the model",
        () => model.mainRequests(worktree("app-1")).some((r) => r.userTexts.at(-1)?.startsWith("PING-AFTER")),
        20_000
      )
      yield* onScreen(s, "app-1", "PONG-FROM-MODEL", 20_000)

      // The agent dies: session.exited. `orch session restore` resumes the same conversation (`codex resume --last`).
      process.kill(codexPid(s.socket, "app-1"), "SIGKILL")
      const types = () => s.events().filter((e) => e.sessionId === "app-1").map((e) => e.type)
      yield* eventually("session.exited", () => types().includes("session.exited"), 30_000)
      const restored = yield* s.orch(["session", "restore", "app-1"])
      assert.strictEqual(restored.code, 0, restored.stderr)
      assert.strictEqual((yield* s.orch(["send", "app-1", "ARE-YOU-BACK?"])).code, 0)
      const back = yield* eventually(
        "the message after restore at the model",
        () => model.mainRequests(worktree("app-1")).find((r) => r.userTexts.at(-1)?.startsWith("ARE-YOU-BACK")),
        30_000
      )
      assert.isTrue(back.userTexts.some((t) => t.includes("Write the answer")), "the resumed conversation carries the task")
      assert.isTrue(back.userTexts.some((t) => t.startsWith("PING-AFTER")), "and the later turn")

      // permissions: default is read-only, asking: a command the model wants run outside the sandbox waits for
      // approval, and orch reads that screen as needs_input. Approving it ("y") runs it. (The supervisor spawns
      // with the config it started with, so it starts again.)
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
      s.writeConfig({ ...codexAgent("default"), tracker: { plugin: "repohost", apiUrl: emulator.url } })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      const asking = yield* s.orch(["spawn", "app", String(emulator.addIssue("acme/app", { title: "Touch a file", body: "" }))])
      assert.strictEqual(asking.code, 0, asking.stderr)
      yield* onScreen(s, "app-2", "Would you like to run the following command?", 30_000)
      yield* eventually("needs_input", () => s.record("app-2").status === "needs_input", 20_000)
      execFileSync("tmux", ["-S", s.socket, "send-keys", "-t", "=app-2:", "y"])
      yield* eventually(
        "the approved command's result at the model",
        () => model.mainRequests(worktree("app-2")).some((r) => r.toolOutputs.some((t) => t.includes("touched"))),
        20_000
      )
      yield* eventually("ready after the approved turn", () => s.record("app-2").activity === "ready", 20_000)
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 180_000)
  it.live("a 429 the CLI gave up on is rate_limited from its screen; told to continue after the threshold, the work goes on", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const model = yield* Effect.acquireRelease(Effect.promise(() => startResponsesServer()), (m) => Effect.promise(() => m.close()))
      const refused = { error: { status: 429, code: "rate_limit_exceeded", message: "Rate limit reached for gpt-test on requests per min (RPM)." } }
      // Codex sends the continue message after the refused one; the last user message picks the turn.
      model.script([
        { when: "issue 5", steps: [refused] },
        { when: "limit has reset", steps: [{ shell: ["echo carried-on"] }, { text: "Carried on." }] }
      ])
      writeCodexHome(s.home, model.url, [s.repo.path])
      s.writeConfig({ ...codexAgent("skip"), reactions: { "agent-rate-limited": { threshold: "15s" } } })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "5"])).code, 0)
      const limited = yield* eventually("session.rate_limited", () => s.events().find((e) => e.type === "session.rate_limited"), 60_000)
      assert.match(limited.message ?? "", /429 Too Many Requests/)
      yield* eventually("the continue message's command output at the model", () =>
        model.mainRequests().some((r) => r.toolOutputs.some((t) => t.includes("carried-on"))), 60_000)
      yield* eventually("ready after the continued turn, the limit forgotten", () =>
        s.record("app-1").activity === "ready" && s.record("app-1").rateLimit === undefined, 30_000)
      assert.lengthOf(
        s.events().filter((e) =>
          e.type === "session.rate_limited"
        ),
        1
      )
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 150_000)
})
