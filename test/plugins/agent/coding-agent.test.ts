import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { activityOf, parseSignal } from "../../../src/domain/activity.ts"
import { HOOK_EVENTS, hookCommand, installHooks, makeCodingAgent } from "../../../src/plugins/agent/coding-agent.ts"
import { tempDir } from "../../support/host.ts"
import { makeRepo } from "../../support/repo.ts"

describe("agent coding-agent (Claude Code)", () => {
  it.effect("the hook command appends the event as one JSON line, with a plain shell and no node", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const file = join(dir, "activity.jsonl")
      const payload = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "echo 'quoted' \"x\"" } }, null, 2)
      execFileSync("/bin/sh", ["-c", hookCommand("PreToolUse", file)], { input: payload, env: { PATH: "/usr/bin:/bin" } })
      execFileSync("/bin/sh", ["-c", hookCommand("Stop", file)], { input: "", env: { PATH: "/usr/bin:/bin" } })
      const lines = readFileSync(file, "utf8").trimEnd().split("\n")
      assert.strictEqual(lines.length, 2)
      const first = parseSignal(lines[0]!)!
      assert.strictEqual(first.event, "PreToolUse")
      assert.deepStrictEqual(first.payload, JSON.parse(payload))
      assert.match(first.ts!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      assert.strictEqual(activityOf(first), "active")
      assert.deepInclude(parseSignal(lines[1]!), { event: "Stop", payload: null })
    }))

  it.effect("installs its hooks in .claude/settings.local.json, keeps the user's settings and hooks, and keeps the file out of git", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const repo = makeRepo(dir)
      mkdirSync(join(repo.path, ".claude"))
      writeFileSync(
        join(repo.path, ".claude", "settings.local.json"),
        JSON.stringify({
          model: "opus",
          hooks: { Stop: [{ hooks: [{ type: "command", command: "say done" }] }] }
        })
      )
      const context = { workspacePath: repo.path, activityFile: join(dir, "activity.jsonl") } as Parameters<typeof installHooks>[0]
      yield* installHooks(context)
      yield* installHooks(context)
      const settings = JSON.parse(readFileSync(join(repo.path, ".claude", "settings.local.json"), "utf8"))
      assert.strictEqual(settings.model, "opus")
      assert.deepStrictEqual(Object.keys(settings.hooks).sort(), [...HOOK_EVENTS].sort())
      assert.strictEqual(settings.hooks.Stop.length, 2, "the user's Stop hook stays, orch's is not added twice")
      assert.strictEqual(settings.hooks.Stop[0].hooks[0].command, "say done")
      assert.strictEqual(settings.hooks.PreToolUse[0].matcher, "*")
      assert.isUndefined(settings.hooks.Stop[1].matcher)
      assert.strictEqual(execFileSync("git", ["-C", repo.path, "status", "--porcelain"], { encoding: "utf8" }), "")
    }))

  it("launch command: permissions, model, system prompt from a file, its own session id; resume uses it", () =>
    Effect.runPromise(
      Effect.gen(function*() {
        const dir = yield* tempDir()
        const agent = makeCodingAgent({ permissions: "skip", model: "opus" })
        const context = {
          sessionId: "app-1",
          issueId: "1",
          branch: "feat/1",
          workspacePath: dir,
          promptFile: "/p/prompt.md",
          systemPromptFile: "/p/system prompt.md",
          task: "Do the task",
          activityFile: join(dir, "a.jsonl"),
          conversationId: "c0ffee"
        } as Parameters<typeof agent.launch>[0]
        const launch = yield* agent.launch(context)
        assert.strictEqual(
          launch.command,
          "claude --dangerously-skip-permissions --model 'opus' --append-system-prompt \"$(cat '/p/system prompt.md')\" --session-id c0ffee"
        )
        assert.strictEqual(launch.initialMessage, "Do the task")
        assert.strictEqual((yield* agent.resume(context)).command.endsWith("--resume c0ffee"), true)
        assert.include((yield* makeCodingAgent({ permissions: "auto-edit" }).launch(context)).command, "--permission-mode acceptEdits")
        // Without a flag Claude Code 2.x starts in auto mode, which cannot run commands behind a local endpoint.
        assert.include((yield* makeCodingAgent({ permissions: "default" }).launch(context)).command, "--permission-mode default")
      }).pipe(Effect.scoped)
    ))
})
