/**
 * The agent-drift canary, offline half: screens and hook payloads recorded from the pinned Claude Code
 * (test/fixtures/agents/claude-code-<version>/) read by orch's screen-fallback detector and hook mapping.
 * `orch doctor` runs the same check against the installed agent (test/agents/doctor.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { activityOf, limitOf, parseSignal } from "../../src/domain/activity.ts"
import { limitLineOf, resetFromText } from "../../src/domain/rate-limit.ts"
import { claudeActivityFromScreen, claudeStartBlocker } from "../../src/plugins/agent/claude-screen.ts"
import { makeCodingAgent } from "../../src/plugins/agent/coding-agent.ts"
import { CLAUDE_VERSION } from "./claude-env.ts"

const dir = join("test/fixtures/agents", `claude-code-${CLAUDE_VERSION}`)
const screen = (name: string) => readFileSync(join(dir, `${name}.txt`), "utf8")

const EXPECTED: Record<string, { activity: string | undefined; readyForInput: boolean; blocker?: RegExp }> = {
  "ready-bypass": { activity: "ready", readyForInput: true },
  "ready-manual": { activity: "ready", readyForInput: true },
  "ready-after-turn": { activity: "ready", readyForInput: true },
  "busy-tool": { activity: "active", readyForInput: false },
  "busy-queued": { activity: "active", readyForInput: false },
  "permission-bash": { activity: "waiting_input", readyForInput: false },
  "auto-mode-blocked": { activity: "waiting_input", readyForInput: false, blocker: /auto mode/ },
  "trust-dialog": { activity: "waiting_input", readyForInput: false, blocker: /trust this folder/ },
  "api-key-prompt": { activity: "waiting_input", readyForInput: false, blocker: /API key/ },
  // A 429 with a usage limit's headers (5-hour window): retried with the reset time on the agent's clock.
  "rate-limit-retrying": { activity: "rate_limited", readyForInput: false },
  // A plain 429 (a per-minute rate limit): retried with the provider's message.
  "rate-limit-retrying-429": { activity: "rate_limited", readyForInput: false },
  // After its tenth attempt: the error above the input box, which takes a message again.
  "rate-limited": { activity: "rate_limited", readyForInput: false },
  // A 529: the provider overloaded; it passes with time like a limit.
  overloaded: { activity: "rate_limited", readyForInput: false }
}

describe(`Claude Code ${CLAUDE_VERSION}: recorded screens`, () => {
  it("every recorded screen has an expectation", () => {
    expect(readdirSync(dir).filter((f) => f.endsWith(".txt")).map((f) => f.replace(/\.txt$/, "")).sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  const agent = makeCodingAgent({})
  it.each(Object.entries(EXPECTED))("%s", (name, expected) => {
    const text = screen(name)
    expect(claudeActivityFromScreen(text)).toBe(expected.activity)
    expect(agent.activityFromScreen(text)).toBe(expected.activity)
    expect(agent.isReadyForInput(text)).toBe(expected.readyForInput)
    if (expected.blocker) expect(claudeStartBlocker(text)).toMatch(expected.blocker)
    else expect(claudeStartBlocker(text)).toBeUndefined()
  })

  it("the input box stays on screen while busy: busy is read off the footer, not the prompt", () => {
    expect(screen("busy-tool")).toMatch(/^❯/m)
    expect(claudeActivityFromScreen(screen("busy-tool"))).toBe("active")
  })

  it("a limit's line and reset time are read off the screen", () => {
    expect(limitLineOf(screen("rate-limit-retrying"))).toMatch(/^5-hour limit reached · retrying in 4s \(4:12pm\) · attempt 4\/10$/)
    expect(limitLineOf(screen("rate-limit-retrying-429"))).toMatch(/^429 This request would exceed your account's rate limit/)
    expect(limitLineOf(screen("rate-limited"))).toMatch(/^API Error: Request rejected \(429\)/)
    const now = Date.UTC(2026, 10, 26, 14, 12)
    expect(resetFromText(limitLineOf(screen("rate-limit-retrying"))!, now, 0)).toBe(Date.UTC(2026, 10, 26, 16, 12))
    expect(resetFromText(limitLineOf(screen("rate-limited"))!, now, 0)).toBeUndefined()
  })

  it("an old limit error scrolled above a later turn is not read as a limit", () => {
    const later = screen("rate-limited").replace(/❯\s*Resend your message to try again/, "❯ ")
    expect(claudeActivityFromScreen(later)).toBe("ready")
  })

  it("a screen that is not Claude Code's says nothing", () => {
    expect(claudeActivityFromScreen("$ ls\nREADME.md\n$ ")).toBeUndefined()
    expect(claudeActivityFromScreen("")).toBeUndefined()
  })
})

describe(`Claude Code ${CLAUDE_VERSION}: recorded hook payloads`, () => {
  const signals = readFileSync(join(dir, "hook-payloads.jsonl"), "utf8").trim().split("\n").map((line) => parseSignal(line)!)
  it.each([
    ["SessionStart", "ready"],
    ["UserPromptSubmit", "active"],
    ["PreToolUse", "active"],
    ["PostToolUse", "active"],
    ["PermissionRequest", "waiting_input"],
    ["Notification", "waiting_input"],
    ["Stop", "ready"],
    ["StopFailure", "rate_limited"],
    ["SessionEnd", undefined]
  ])("%s → %s", (event, activity) => {
    const signal = signals.find((s) => s.event === event)
    expect(signal, `a recorded ${event} payload`).toBeDefined()
    expect((signal!.payload as { hook_event_name: string }).hook_event_name).toBe(event)
    expect(activityOf(signal!)).toBe(activity)
  })
  it("a StopFailure for a rate limit, or the provider overloaded, carries what the agent showed", () => {
    const [limited, overloaded] = signals.filter((s) => s.event === "StopFailure")
    expect(limitOf(limited!)).toBe("API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.")
    expect((overloaded!.payload as { error: string }).error).toBe("server_error")
    expect(activityOf(overloaded!)).toBe("rate_limited")
    expect(limitOf(overloaded!)).toMatch(/^API Error: 529 Overloaded\. /)
  })
})
