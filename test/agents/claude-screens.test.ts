/**
 * The agent-drift canary, offline half: screens and hook payloads recorded from the pinned Claude Code
 * (test/fixtures/agents/claude-code-<version>/) read by orch's screen-fallback detector and hook mapping.
 * `orch doctor` runs the same check against the installed agent (test/agents/doctor.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { activityOf, limitOf, parseSignal } from "../../src/domain/activity.ts"
import { limitKindOf, limitLineOf, resetFromText } from "../../src/domain/rate-limit.ts"
import { claudeActivityFromScreen, claudeLimitFromScreen, claudeStartBlocker } from "../../src/plugins/agent/claude-screen.ts"
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
  overloaded: { activity: "rate_limited", readyForInput: false },
  // Recorded by test/agents/record-screens.ts against a model server answering as Anthropic's API does (its
  // limit-*.timeline files say when each screen showed). A 429 with retry-after: 1 (its own backoff is longer): the
  // first two attempts say only "API error" and wait about a second, as a failed request's would.
  "limit-429-retry-after-1s-retry-1": { activity: "retrying", readyForInput: false },
  "limit-429-retry-after-1s-retry-2": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-1s-end": { activity: "rate_limited", readyForInput: false },
  // retry-after: 35: an "API error" waiting 39 s waits on the provider; a retry then got through.
  "limit-429-retry-after-35s-retry-1": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-35s-retry-2": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-35s-end": { activity: "ready", readyForInput: true },
  // retry-after: 60 is the longest it waits ("1m 8s" with its jitter), counting down.
  "limit-429-retry-after-60s-retry-1": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-60s-retry-2": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-60s-end": { activity: "ready", readyForInput: true },
  // Longer: it gives up at once, naming no wait.
  "limit-429-retry-after-90s-end": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-3600s-end": { activity: "rate_limited", readyForInput: false },
  // Unless CLAUDE_CODE_RETRY_WATCHDOG is set: then it waits out the hour, "retrying in 1h · attempt 1/300".
  "limit-429-retry-after-3600s-watchdog-retry-1": { activity: "rate_limited", readyForInput: false },
  "limit-429-retry-after-3600s-watchdog-end": { activity: "rate_limited", readyForInput: false },
  // A 529 without retry-after: "API error" on its own short backoff first, then named.
  "limit-529-retry-1": { activity: "retrying", readyForInput: false },
  "limit-529-retry-2": { activity: "retrying", readyForInput: false },
  "limit-529-retry-3": { activity: "rate_limited", readyForInput: false },
  "limit-529-end": { activity: "rate_limited", readyForInput: false },
  "limit-529-retry-after-20s-retry-1": { activity: "rate_limited", readyForInput: false },
  "limit-529-retry-after-20s-retry-2": { activity: "rate_limited", readyForInput: false },
  "limit-529-retry-after-20s-end": { activity: "rate_limited", readyForInput: false },
  // A 500 is no limit: retried (its status stays working), and given up at its prompt.
  "limit-500-retry-1": { activity: "retrying", readyForInput: false },
  "limit-500-retry-2": { activity: "retrying", readyForInput: false },
  "limit-500-end": { activity: "ready", readyForInput: true }
}

/** What each screen read as rate_limited shows of the limit (claudeLimitFromScreen). */
const LIMITS: Record<string, { line: RegExp; kind?: string; retrying: boolean; retryInMs?: number }> = {
  "rate-limit-retrying": { line: /^5-hour limit reached · retrying in 4s \(4:12pm\) · attempt 4\/10$/, kind: "rate_limit", retrying: true, retryInMs: 4000 },
  "rate-limit-retrying-429": {
    line: /^429 This request would exceed .* · retrying in 7s · attempt 5\/10$/,
    kind: "rate_limit",
    retrying: true,
    retryInMs: 7000
  },
  "rate-limited": { line: /^API Error: Request rejected \(429\)/, kind: "rate_limit", retrying: false },
  overloaded: { line: /^API Error: 529 Overloaded\./, kind: "overloaded", retrying: false },
  "limit-429-retry-after-1s-retry-2": { line: /^429 .* · retrying in 3s · attempt 3\/10$/, kind: "rate_limit", retrying: true, retryInMs: 3000 },
  "limit-429-retry-after-1s-end": { line: /^API Error: Request rejected \(429\)/, kind: "rate_limit", retrying: false },
  "limit-429-retry-after-35s-retry-1": { line: /^API error · retrying in 39s · attempt 1\/10$/, retrying: true, retryInMs: 39_000 },
  "limit-429-retry-after-35s-retry-2": { line: /^429 .* · retrying in 43s · attempt 3\/10$/, kind: "rate_limit", retrying: true, retryInMs: 43_000 },
  "limit-429-retry-after-60s-retry-1": { line: /^API error · retrying in 1m 8s · attempt 1\/10$/, retrying: true, retryInMs: 68_000 },
  "limit-429-retry-after-60s-retry-2": { line: /^API error · retrying in 59s · attempt 1\/10$/, retrying: true, retryInMs: 59_000 },
  "limit-429-retry-after-90s-end": { line: /^API Error: Request rejected \(429\)/, kind: "rate_limit", retrying: false },
  "limit-429-retry-after-3600s-end": { line: /^API Error: Request rejected \(429\)/, kind: "rate_limit", retrying: false },
  "limit-429-retry-after-3600s-watchdog-retry-1": { line: /^API error · retrying in 1h · attempt 1\/300$/, retrying: true, retryInMs: 3_600_000 },
  "limit-429-retry-after-3600s-watchdog-end": { line: /^API error · retrying in 1h · attempt 1\/300$/, retrying: true, retryInMs: 3_600_000 },
  "limit-529-retry-3": { line: /^529 Overloaded · retrying in 3s · attempt 3\/10$/, kind: "overloaded", retrying: true, retryInMs: 3000 },
  "limit-529-end": { line: /^API Error: 529 Overloaded\./, kind: "overloaded", retrying: false },
  "limit-529-retry-after-20s-retry-1": { line: /^API error · retrying in 20s · attempt 1\/10$/, retrying: true, retryInMs: 20_000 },
  "limit-529-retry-after-20s-retry-2": { line: /^529 Overloaded · retrying in 22s · attempt 3\/10$/, kind: "overloaded", retrying: true, retryInMs: 22_000 },
  "limit-529-retry-after-20s-end": { line: /^API Error: 529 Overloaded\./, kind: "overloaded", retrying: false }
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

  it("every screen read as rate_limited says what it shows of the limit", () => {
    expect(Object.keys(LIMITS).sort()).toEqual(Object.entries(EXPECTED).filter(([, e]) => e.activity === "rate_limited").map(([name]) => name).sort())
  })

  it.each(Object.entries(LIMITS))("%s: the limit it shows", (name, expected) => {
    const shown = claudeLimitFromScreen(screen(name))
    expect(shown?.line).toMatch(expected.line)
    expect(shown).toMatchObject({ retrying: expected.retrying })
    expect(shown?.kind).toBe(expected.kind)
    expect(shown?.retryInMs).toBe(expected.retryInMs)
    expect(agent.limitFromScreen?.(screen(name))).toEqual(shown)
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

describe(`Claude Code ${CLAUDE_VERSION}: the hooks that ended a refused turn`, () => {
  const ending = (scenario: string) => parseSignal(readFileSync(join(dir, `limit-${scenario}.hooks.jsonl`), "utf8").trim().split("\n").at(-1)!)!
  it.each<[string, string, string | undefined, string | undefined]>([
    [
      "429-retry-after-1s",
      "rate_limited",
      "rate_limit",
      "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."
    ],
    [
      "429-retry-after-90s",
      "rate_limited",
      "rate_limit",
      "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."
    ],
    [
      "429-retry-after-3600s",
      "rate_limited",
      "rate_limit",
      "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."
    ],
    ["529", "rate_limited", "overloaded", undefined],
    ["529-retry-after-20s", "rate_limited", "overloaded", undefined],
    ["500", "ready", undefined, undefined],
    ["429-retry-after-35s", "ready", undefined, undefined],
    ["429-retry-after-60s", "ready", undefined, undefined]
  ])("%s: %s", (scenario, activity, kind, message) => {
    const signal = ending(scenario)
    expect(activityOf(signal)).toBe(activity)
    const limit = limitOf(signal)
    expect(limit === undefined ? undefined : limitKindOf(limit)).toBe(kind)
    if (message !== undefined) expect(limit).toBe(message)
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
