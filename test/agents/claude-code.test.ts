/**
 * The real Claude Code CLI (pinned in devDependencies) in tmux under a real supervisor, against the scripted
 * model server and the repohost emulator. One supervisor and one worker carry the whole story, so the suite
 * pays for few agent start-ups: the orchestrator spawns the worker through its Bash tool, the worker opens a
 * PR that fails CI, fixes it, takes a message while busy, dies, and is restored into the same conversation.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/demo/emulator/server.ts"
import { eventually } from "../support/eventually.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { git } from "../support/repo.ts"
import { claudeAgent, writeClaudeHome } from "./claude-env.ts"
import { type ModelRequest, startModelServer } from "./model-server.ts"

const bash = (command: string) => ({ tools: [{ tool: "Bash", input: { command, description: command.slice(0, 40) } }] })

/** The pid of the agent under the tmux pane's shell (the pane runs `/bin/sh -c "unset …; claude …"`). */
const agentPid = (socket: string, session: string): number => {
  const shell = execFileSync("tmux", ["-S", socket, "display-message", "-p", "-t", `=${session}:`, "#{pane_pid}"], { encoding: "utf8" }).trim()
  const children = readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/).filter(Boolean)
  assert.lengthOf(children, 1, "the pane's shell runs exactly the agent")
  return Number(children[0])
}

const hookEvents = (file: string) =>
  readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { event: string; payload: Record<string, unknown> })

describe("the real Claude Code CLI under orch", () => {
  it.live("spawn, hooks, activity, send while busy, CI failure and fix, exit and restore; the orchestrator drives orch", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ config: { readyThresholdMs: 3000, pollIntervalMs: 1000 } })
      const emulator = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startEmulator({ repos: [{ repo: "acme/app", gitDir: s.repo.origin }], ci: ({ message }) => (message.includes("[fail]") ? "failure" : "success") })
        ),
        (e) => Effect.promise(() => e.close())
      )
      const model = yield* Effect.acquireRelease(Effect.promise(() => startModelServer()), (m) => Effect.promise(() => m.close()))
      const worktree = join(s.dataDir, "worktrees", "app", "app-1")
      const release = join(s.root, "release")
      // The orchestrator's prompt names orch by its absolute path: Claude Code's Bash tool drops the PATH it was given.
      const orchBin = join(s.dataDir, "bin", "orch")
      const issue = emulator.addIssue("acme/app", { title: "Make the answer 2", body: "The answer in answer.txt must be 2." })
      model.script([
        // The orchestrator's task: it reads the status and starts a worker, with orch commands in its Bash tool.
        { when: "Read `orch status --json`", steps: [bash(`${orchBin} status --json`), bash(`${orchBin} spawn app ${issue}`), { text: "Started a worker." }] },
        {
          when: "Make the answer 2",
          steps: [
            { tools: [{ tool: "Write", input: { file_path: join(worktree, "answer.txt"), content: "3\n" } }] },
            bash(
              `git add answer.txt && git commit -qm 'Answer 3 [fail]' && git push -q origin HEAD:feat/${issue} && curl -sf -X POST ${emulator.url}/repos/acme/app/pulls -d '{"head":"feat/${issue}","base":"main","title":"Make the answer 2"}'`
            ),
            { text: "Opened the pull request." }
          ]
        },
        {
          when: "CI is failing on your pull request",
          steps: [bash(`printf '2\\n' > answer.txt && git commit -qam 'Answer 2' && git push -q origin HEAD:feat/${issue}`), { text: "Fixed and pushed." }]
        },
        { when: "SLOW-CHECK", steps: [bash(`while [ ! -f ${release} ]; do sleep 0.2; done; echo released`), { text: "Slow check done." }] },
        { when: "QUEUED-NOTE", steps: [{ text: "Noted." }] },
        { when: "ARE-YOU-BACK", steps: [{ text: "Back, same conversation." }] }
      ])
      writeClaudeHome(s.home, [s.repo.path])
      s.writeConfig({ ...claudeAgent(model.url), tracker: { plugin: "repohost", apiUrl: emulator.url }, scm: { plugin: "repohost", apiUrl: emulator.url } })

      // The orchestrator session on the real CLI: its prompt reaches the model, and it runs orch through Bash.
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"])
      assert.strictEqual(started.code, 0, started.stderr)
      const orchestratorCwd = join(s.dataDir, "worktrees", "app", "app-orchestrator")
      const orchestratorFirst = yield* eventually("the orchestrator's first model call", () => model.mainRequests(orchestratorCwd)[0], 30_000)
      assert.include(orchestratorFirst.system, "You are the orchestrator of app (acme/app)")
      assert.include(orchestratorFirst.userTexts.at(-1), "Read `orch status --json`")
      assert.include(orchestratorFirst.system, `orch is \`${orchBin}\``)
      const results = yield* eventually("both orch commands' output at the model", () => {
        const all = model.mainRequests(orchestratorCwd).flatMap((r) => r.toolResults)
        return all.length >= 2 ? all : undefined
      }, 60_000)
      assert.include(results[0], "\"sessionId\":\"app-orchestrator\"", "orch status --json ran in the agent's shell")
      assert.include(results[1], "app-1", "orch spawn ran in the agent's shell")

      // The worker: its system prompt and task reached the model; it was confirmed delivered (spawn succeeded).
      const workerFirst = yield* eventually("the worker's first model call", () => model.mainRequests(worktree)[0], 30_000)
      assert.include(workerFirst.system, "You are a coding agent working on one issue of acme/app, in session app-1 managed by orch.")
      assert.include(workerFirst.userTexts.at(-1), `Work on issue #${issue} of acme/app: Make the answer 2`)
      assert.include(workerFirst.userTexts.at(-1), "The answer in answer.txt must be 2.")
      assert.strictEqual(s.record("app-1").agent.plugin, "coding-agent")

      // It opened a PR that fails CI; the ci-failed message with the failing check reaches the model; its fix turns CI green.
      const ciMessage = yield* eventually("the ci-failed message at the model", () =>
        model.mainRequests(worktree).flatMap((r) => r.userTexts).find((t) => t.includes("CI is failing on your pull request")), 60_000)
      assert.include(ciMessage, "Failing checks:\n- ci: 1 test failed")
      const types = () =>
        s.events().filter((e) =>
          e.sessionId === "app-1"
        ).map((e) => e.type)
      // The reaction records its event once the agent took the message, which may be after the model saw it.
      yield* eventually("the ci-failed reaction's event", () => types().includes("reaction.triggered"), 10_000)
      assert.includeMembers(types(), ["pr.created", "ci.failed", "reaction.triggered"])
      yield* eventually("CI to pass after the agent's fix", () => types().includes("ci.passed"), 30_000)
      git(s.repo.path, "fetch", "-q", "origin")
      assert.strictEqual(git(s.repo.path, "show", `origin/feat/${issue}:answer.txt`), "2")

      // Hooks drive activity: ready after the turn, idle after readyThresholdMs, with no screen read in between
      // (the screen fallback waits for 60 s of hook silence; this all happens well within it).
      yield* eventually("ready after the turn", () => s.record("app-1").activity === "ready", 20_000)
      const readyAt = Date.now()
      yield* eventually("idle after readyThresholdMs", () => s.record("app-1").activity === "idle", 20_000)
      assert.isAtLeast(Date.now() - readyAt, 1500)
      const activityFile = join(s.dataDir, "sessions", "app", "app-1", "activity.jsonl")
      assert.includeMembers(hookEvents(activityFile).map((h) => h.event), ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"])
      assert.strictEqual(hookEvents(activityFile)[0]!.payload.session_id, s.record("app-1").agent.conversationId)

      // orch send is a user turn; a second one while the agent is busy is queued by the agent and reaches the model once.
      assert.strictEqual((yield* s.orch(["send", "app-1", "Run the SLOW-CHECK now."])).code, 0)
      yield* eventually("the slow tool running, the session active", () =>
        hookEvents(activityFile).some((h) =>
          h.event === "PreToolUse" && String((h.payload.tool_input as { command?: string }).command).includes(release)
        ) &&
        s.record("app-1").activity === "active", 20_000)
      const sentBusy = yield* s.orch(["send", "app-1", "QUEUED-NOTE: also keep the answer file short."])
      assert.strictEqual(sentBusy.code, 0, sentBusy.stderr)
      writeFileSync(release, "")
      const withQueued = yield* eventually("the queued message at the model", () =>
        model.mainRequests(worktree).find((r) =>
          r.userTexts.some((t) =>
            t.includes("QUEUED-NOTE")
          )
        ), 20_000)
      assert.lengthOf(withQueued.userTexts.filter((t) => t.includes("QUEUED-NOTE")), 1)
      yield* eventually("the agent ready again", () => s.record("app-1").activity === "ready" || s.record("app-1").activity === "idle", 20_000)
      const last: ModelRequest = model.mainRequests(worktree).at(-1)!
      assert.lengthOf(last.userTexts.filter((t) => t.includes("QUEUED-NOTE")), 1, "delivered once")
      assert.lengthOf(last.userTexts.filter((t) => t.includes("SLOW-CHECK")), 1)

      // The agent process dies: session.exited. `orch session restore` resumes the same conversation.
      process.kill(agentPid(s.socket, "app-1"), "SIGKILL")
      yield* eventually("session.exited", () => types().includes("session.exited"), 30_000)
      assert.strictEqual(s.record("app-1").status, "errored")
      const restored = yield* s.orch(["session", "restore", "app-1"])
      assert.strictEqual(restored.code, 0, restored.stderr)
      const resent = yield* s.orch(["send", "app-1", "ARE-YOU-BACK?"])
      assert.strictEqual(resent.code, 0, resent.stderr)
      const afterRestore = yield* eventually("the message after restore at the model", () =>
        model.mainRequests(worktree).find((r) =>
          r.userTexts.at(-1)?.includes("ARE-YOU-BACK")
        ), 30_000)
      assert.include(afterRestore.userTexts[0], "Make the answer 2", "the resumed conversation carries the task")
      // (A SIGKILL can lose the agent's last moments of transcript, so the turn just before it is not asserted.)
      assert.isTrue(
        afterRestore.userTexts.some((t) =>
          t.includes("CI is failing on your pull request")
        ),
        "earlier turns too"
      )
      const starts = hookEvents(activityFile).filter((h) => h.event === "SessionStart")
      assert.deepStrictEqual(starts.map((h) => h.payload.source), ["startup", "resume"])
      assert.strictEqual(starts[1]!.payload.session_id, s.record("app-1").agent.conversationId)
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 300_000)

  it.live("a permission prompt is needs_input and the agent-needs-input notification; approving it goes on", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const model = yield* Effect.acquireRelease(Effect.promise(() => startModelServer()), (m) => Effect.promise(() => m.close()))
      model.script([{ when: "issue 5", steps: [bash("touch approved-file && echo touched"), { text: "Done." }] }])
      writeClaudeHome(s.home, [s.repo.path])
      s.writeConfig(claudeAgent(model.url, "default"))
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      // The orchestrator asks nothing here: only the worker's Bash call needs approval.
      const spawned = yield* s.orch(["spawn", "app", "5"])
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      yield* eventually("needs_input", () => s.record("app-1").status === "needs_input", 30_000)
      assert.strictEqual(s.record("app-1").activity, "waiting_input")
      // The PermissionRequest hook fires before the dialog is drawn: the hook, not the screen, is the first to know.
      yield* eventually("the permission dialog on screen", () => s.screen("app-1").includes("Do you want to proceed?"), 10_000)
      yield* eventually("the agent-needs-input notification", () =>
        readFileSync(join(s.dataDir, "notifications.jsonl"), "utf8").includes("app-1: agent needs input"), 10_000)
      // A person answers "1. Yes". The dialog ignores keys for a moment after it opens, so they try again if needed.
      const approve = Effect.suspend(() => {
        execFileSync("tmux", ["-S", s.socket, "send-keys", "-t", "=app-1:", "1"])
        return eventually("the dialog to close", () =>
          !s.screen("app-1").includes("Do you want to proceed?"), 1500)
      })
      yield* Effect.retry(approve, { times: 5 })
      yield* eventually("the approved command's result at the model", () =>
        model.mainRequests().some((r) =>
          r.toolResults.some((t) =>
            t.includes("touched")
          )
        ), 20_000)
      yield* eventually("ready after the approved turn", () => s.record("app-1").activity === "ready", 20_000)
      assert.include(s.events().filter((e) => e.sessionId === "app-1").map((e) => e.type), "session.needs_input")
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 120_000)

  it.live("the provider's 429: rate_limited, notified once, queued work held back, told to continue after the threshold", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const model = yield* Effect.acquireRelease(Effect.promise(() => startModelServer()), (m) => Effect.promise(() => m.close()))
      const refused = { error: { status: 429, type: "rate_limit_error", message: "This request would exceed your account's rate limit." } }
      // Claude Code may send the continue message in one user message with the refused one: it is matched first.
      model.script([
        { when: "limit has reset", steps: [bash("echo carried-on"), { text: "Carried on." }] },
        { when: "issue 5", steps: [refused] },
        { when: "issue 6", steps: [{ text: "Issue 6 started." }] }
      ])
      writeClaudeHome(s.home, [s.repo.path])
      const agent = claudeAgent(model.url)
      // Claude Code gives up at once instead of after its 10 retries (about 3 minutes); it then ends its turn the same way.
      s.writeConfig({
        ...agent,
        agentConfig: { ...agent.agentConfig, env: { ...agent.agentConfig.env, CLAUDE_CODE_MAX_RETRIES: "0" } },
        reactions: { "agent-rate-limited": { threshold: "20s" } }
      })
      assert.strictEqual((yield* s.orch(["start", "app", "--detach", "--no-open"])).code, 0)
      assert.strictEqual((yield* s.orch(["spawn", "app", "5"])).code, 0)
      const limited = yield* eventually("session.rate_limited", () => s.events().find((e) => e.type === "session.rate_limited"), 60_000)
      assert.strictEqual(limited.message, "API Error: Request rejected (429) · This request would exceed your account's rate limit.")
      assert.deepInclude(limited.data, { from: "working", activity: "rate_limited", attempts: 1 })
      const activity = readFileSync(join(s.dataDir, "sessions", "app", "app-1", "activity.jsonl"), "utf8")
      assert.include(activity, "\"event\":\"StopFailure\"", "the StopFailure hook said it")
      yield* eventually("the agent-rate-limited notification", () =>
        readFileSync(join(s.dataDir, "notifications.jsonl"), "utf8").includes("app-1: agent rate-limited"), 10_000)

      // Another issue of the project waits on the same credential.
      assert.strictEqual((yield* s.orch(["queue", "add", "app", "6"])).code, 0)
      const status = yield* s.orch(["status"])
      assert.match(status.stdout, /^app-1 is rate-limited: API Error: Request rejected \(429\) · .*; orch tells it to continue at \d\d:\d\d \S+$/m)
      const queued = yield* s.orch(["queue", "ls"])
      assert.match(queued.stdout, /waiting for the model quota: agent coding-agent \(key [0-9a-f]{8}\) is rate-limited \(app-1\)/)

      // After the threshold orch tells it to continue; the work goes on, and the queued issue starts.
      yield* eventually("the continue message's result at the model", () =>
        model.mainRequests().some((r) =>
          r.toolResults.some((t) =>
            t.includes("carried-on")
          )
        ), 60_000)
      const continued = s.events().find((e) =>
        e.type === "reaction.triggered" && e.reaction === "agent-rate-limited" && e.action === "send-to-agent"
      )
      assert.isDefined(continued)
      assert.isAtLeast(Date.parse(continued!.timestamp) - Date.parse(limited.timestamp), 19_000)
      yield* eventually("ready after the continued turn, the limit forgotten", () =>
        s.record("app-1").activity === "ready" && s.record("app-1").rateLimit === undefined, 20_000)
      yield* eventually("the queued issue admitted", () =>
        s.events().some((e) =>
          e.type === "queue.admitted"
        ), 30_000)
      assert.lengthOf(s.events().filter((e) => e.type === "session.rate_limited"), 1)
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"])).code, 0)
    }), 180_000)

  it.live("a project Claude Code does not trust yet fails the spawn at once, saying what to do", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const model = yield* Effect.acquireRelease(Effect.promise(() => startModelServer()), (m) => Effect.promise(() => m.close()))
      writeClaudeHome(s.home, [])
      s.writeConfig(claudeAgent(model.url))
      const started = Date.now()
      const spawned = yield* s.orch(["spawn", "app", "3"])
      assert.strictEqual(spawned.code, 1)
      assert.match(
        spawned.stderr,
        /^orch: spawn of app issue 3 failed while waiting for the agent \(nothing was left behind\): Claude Code asks whether to trust this folder: run `claude` once in the project's directory and accept\n$/
      )
      assert.isBelow(Date.now() - started, 30_000, "not the 60 s wait for a prompt that never comes")
      assert.deepStrictEqual(s.sessions(), [])
    }), 60_000)
})
