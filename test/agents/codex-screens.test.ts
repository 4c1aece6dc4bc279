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
import { makeCodexAgent } from "../../src/plugins/agent/codex.ts"
import { applyEditsLocally } from "../../src/plugins/workspace/file-edits.ts"

const screen = (name: string) => readFileSync(join("test/fixtures/agents/codex-0.169.0", `${name}.txt`), "utf8")

describe("Codex 0.169.0: recorded screens", () => {
  const agent = makeCodexAgent({})
  it.each(
    [
      ["ready", "ready", true],
      ["ready-after-turn", "ready", true],
      ["busy-reconnecting", "active", false],
      ["busy-tool", "active", false],
      ["busy-queued", "active", false],
      ["approval-command", "waiting_input", false],
      ["sign-in", "waiting_input", false],
      ["trust-folder", "waiting_input", false],
      // A 429: retried five times over a few seconds, then given up on above the input box.
      ["rate-limit-retrying", "rate_limited", false],
      ["rate-limited", "rate_limited", false]
    ] as const
  )("%s → %s", (name, activity, ready) => {
    expect(agent.activityFromScreen(screen(name))).toBe(activity)
    expect(agent.isReadyForInput(screen(name))).toBe(ready)
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
