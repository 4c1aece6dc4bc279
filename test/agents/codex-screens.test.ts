/**
 * Codex 0.169.0 (pinned): screens recorded from the real CLI in tmux against the scripted Responses API server,
 * read by the `codex` plugin, and the command lines the plugin builds (flags that exist in 0.169.0).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentContext } from "../../src/plugins/agent/Agent.ts"
import { codexLimitFromScreen, makeCodexAgent } from "../../src/plugins/agent/codex.ts"
import { applyEditsLocally } from "../../src/plugins/workspace/file-edits.ts"

const screen = (name: string) => readFileSync(join("test/fixtures/agents/codex-0.169.0", `${name}.txt`), "utf8")

describe("Codex 0.169.0: recorded screens", () => {
  const agent = makeCodexAgent({})
  it.each(
    [
      ["ready", "ready", true],
      ["ready-after-turn", "ready", true],
      // "Reconnecting…" over "high demand": what Codex shows for a 500 (and for its provider's capacity).
      ["busy-reconnecting", "rate_limited", false],
      ["busy-tool", "active", false],
      ["busy-queued", "active", false],
      ["approval-command", "waiting_input", false],
      ["sign-in", "waiting_input", false],
      ["trust-folder", "waiting_input", false],
      // A 429: retried five times over a few seconds, then given up on above the input box.
      ["rate-limit-retrying", "rate_limited", false],
      ["rate-limited", "rate_limited", false],
      // Recorded by test/agents/record-screens.ts (limit-*.timeline say when each showed): a 429 with retry-after, which
      // Codex waits out (an hour too) showing how long the turn has run, then gives up after its fifth attempt.
      ["limit-429-retry-after-1s-retry-1", "rate_limited", false],
      ["limit-429-retry-after-1s-end", "rate_limited", false],
      ["limit-429-retry-after-35s-retry-1", "rate_limited", false],
      ["limit-429-retry-after-35s-retry-2", "rate_limited", false],
      ["limit-429-retry-after-35s-end", "rate_limited", false],
      ["limit-429-retry-after-3600s-retry-1", "rate_limited", false],
      ["limit-429-retry-after-3600s-retry-2", "rate_limited", false],
      ["limit-429-retry-after-3600s-end", "rate_limited", false],
      // A 500: "high demand", retried, given up on; a 503 server_is_overloaded: given up on at once, "at capacity".
      ["limit-500-retry-1", "rate_limited", false],
      ["limit-500-end", "rate_limited", false],
      ["limit-503-overloaded-end", "rate_limited", false]
    ] as const
  )("%s → %s", (name, activity, ready) => {
    expect(agent.activityFromScreen(screen(name))).toBe(activity)
    expect(agent.isReadyForInput(screen(name))).toBe(ready)
  })

  const LIMIT_429 = "Exceeded retry limit, last status: 429 Too Many Requests"
  const HIGH_DEMAND = "We’re currently experiencing high demand, which may cause temporary errors."
  it.each(
    [
      ["busy-reconnecting", { line: HIGH_DEMAND, kind: "overloaded", retrying: true }],
      ["rate-limit-retrying", { line: LIMIT_429, kind: "rate_limit", retrying: true }],
      ["rate-limited", { line: "exceeded retry limit, last status: 429 Too Many Requests", kind: "rate_limit", retrying: false }],
      ["limit-429-retry-after-35s-retry-2", { line: LIMIT_429, kind: "rate_limit", retrying: true }],
      ["limit-429-retry-after-3600s-end", { line: LIMIT_429, kind: "rate_limit", retrying: true }],
      ["limit-429-retry-after-35s-end", { line: "exceeded retry limit, last status: 429 Too Many Requests", kind: "rate_limit", retrying: false }],
      ["limit-500-retry-1", { line: HIGH_DEMAND, kind: "overloaded", retrying: true }],
      ["limit-500-end", { line: HIGH_DEMAND, kind: "overloaded", retrying: false }],
      ["limit-503-overloaded-end", { line: "Selected model is at capacity. Please try a different model.", kind: "overloaded", retrying: false }]
    ] as const
  )("%s: the limit it shows (no wait: the time in its retry line is the turn's)", (name, expected) => {
    expect(codexLimitFromScreen(screen(name))).toEqual(expected)
    expect(agent.limitFromScreen?.(screen(name))).toEqual(expected)
  })

  it("a retry for anything else (no reason it names a limit for) is retrying, not a limit", () => {
    const network = screen("limit-500-retry-1").replace(/└ .*/, "└ stream disconnected before completion: error sending request")
    expect(agent.activityFromScreen(network)).toBe("retrying")
  })

  it("a limit the agent got past (a later turn's answer above its input box) is not read as a limit", () => {
    const later = screen("rate-limited").replace(/(› Ask Codex to do anything)/, "› continue\n\n• Carried on.\n\n$1")
    expect(agent.activityFromScreen(later)).toBe("ready")
  })

  it("the sign-in and trust questions stop a spawn at once with what to do", () => {
    expect(agent.startBlocker?.(screen("sign-in"))).toMatch(/codex login --with-api-key/)
    expect(agent.startBlocker?.(screen("trust-folder"))).toMatch(/run `codex` once in the project's directory/)
    expect(agent.startBlocker?.(screen("ready"))).toBeUndefined()
  })
})

describe("the codex plugin's command lines", () => {
  const context = (): AgentContext => {
    const dir = mkdtempSync(join(tmpdir(), "orch-codex-"))
    const systemPromptFile = join(dir, "system.md")
    // Quotes, a backslash and a line that is valid TOML on its own: the prompt must still arrive verbatim.
    writeFileSync(systemPromptFile, "You are \"the\" agent.\nx = 1\nC:\\path\n")
    return { systemPromptFile, task: "Do it" } as AgentContext
  }

  it.effect.each(
    [
      ["skip", "--dangerously-bypass-approvals-and-sandbox"],
      ["auto-edit", "--sandbox workspace-write --ask-for-approval on-request"],
      ["default", "--sandbox read-only --ask-for-approval on-request"]
    ] as const
  )("permissions %s → %s", ([permissions, flags]) =>
    Effect.gen(function*() {
      const agent = makeCodexAgent({ permissions, command: "codex", model: "m 1" })
      const ctx = context()
      const launch = yield* agent.launch(ctx)
      // The instructions file is an edit the spawn makes where the session runs: made here.
      yield* applyEditsLocally(launch.files ?? [])
      expect(launch.command).toMatch(new RegExp(`^codex --no-daemon ${flags} -m 'm 1' -c "developer_instructions=\\$\\(cat '.*codex-instructions.toml'\\)"$`))
      expect(launch.initialMessage).toBe("Do it")
      expect((yield* agent.resume(ctx)).command).toBe(launch.command.replace(/^codex /, "codex resume --last "))
      // What the shell hands Codex after `-c`: a TOML string whose value is the prompt, byte for byte.
      const arg = execFileSync("/bin/sh", ["-c", `printf %s ${launch.command.slice(launch.command.indexOf("\"developer"))}`], { encoding: "utf8" })
      expect(JSON.parse(arg.replace(/^developer_instructions=/, ""))).toBe(readFileSync(ctx.systemPromptFile, "utf8"))
    }))
})
