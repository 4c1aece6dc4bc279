import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { clockTime, continueTime, credentialOf, resetFromText } from "../../src/domain/rate-limit.ts"

const at = (hour: number, minute = 0, day = 26) => Date.UTC(2026, 10, day, hour, minute)
const MIN = 60_000

describe("resetFromText: the occurrence nearest now (12 h either way), on the agent's clock", () => {
  it.each<[string, number, number, number | undefined]>([
    ["5-hour limit reached · retrying in 4s (4:12pm) · attempt 5/10", at(14, 12), 0, at(16, 12)],
    ["You've hit your limit · resets 4pm", at(14, 12), 0, at(16)],
    // Just past (the CLI retried for minutes before giving up): the limit has lifted, not "tomorrow".
    ["5-hour limit reached ∙ resets 3:16pm", at(15, 17), 0, at(15, 16)],
    ["resets 11am", at(14, 12), 0, at(11, 0)],
    ["resets 11am", at(23, 30), 0, at(11, 0, 27)],
    ["resets at 16:30", at(14, 12), 0, at(16, 30)],
    ["resets 16:45 (UTC)", at(14, 12), 120, at(16, 45)],
    ["try again at 4:12 PM", at(14, 12), 0, at(16, 12)],
    ["resets 12am", at(14, 12), 0, at(0, 0, 27)],
    ["resets 12:30pm", at(11), 0, at(12, 30)],
    // A clock two hours east of UTC: 4:12pm there is 14:12 UTC.
    ["(4:12pm)", at(13), 120, at(14, 12)],
    ["(4:12pm)", at(14, 12), 120, at(14, 12)],
    // A zone the text names wins over the clock's: 2:30pm in Berlin (UTC+1 in November) is 13:30 UTC.
    ["resets 2:30pm (Europe/Berlin)", at(12), 0, at(13, 30)],
    ["resets 9am (America/New_York)", at(12), 0, at(14)],
    ["resets 4:12pm (UTC)", at(12), 120, at(16, 12)],
    ["resets 4:12pm (Nowhere/Atlantis)", at(12), 0, undefined],
    ["API Error: Request rejected (429) · rate limit", at(14), 0, undefined],
    ["resets 13pm", at(14), 0, undefined],
    ["retrying in 5s · attempt 5/10", at(14), 0, undefined]
  ])("%s (now %s, offset %s)", (text, now, offset, expected) => {
    expect(resetFromText(text, now, offset)).toBe(expected)
  })
})

describe("continueTime", () => {
  const since = new Date(at(14)).toISOString()
  it.each<[string, number, string | undefined, number]>([
    ["first time, no reset known: the first backoff", 1, undefined, at(14, 5)],
    ["turned away again: doubled", 2, undefined, at(14, 10)],
    ["and again", 4, undefined, at(14, 40)],
    ["at most hourly", 9, undefined, at(15)],
    ["a known reset: the end of its minute", 1, new Date(at(16, 12)).toISOString(), at(16, 12) + 60_000],
    ["a reset already past when it was seen: the limit has lifted, continue after the slack", 1, new Date(at(13)).toISOString(), at(14) + 60_000],
    ["nor one further away than a week", 1, new Date(at(14, 0, 26) + 8 * 24 * 60 * MIN).toISOString(), at(14, 5)]
  ])("%s", (_, attempts, resetAt, expected) => {
    expect(continueTime({ since, attempts, ...(resetAt !== undefined ? { resetAt } : {}) }, 5 * MIN)).toBe(expected)
  })

  it("a first backoff longer than an hour is kept", () => {
    expect(continueTime({ since, attempts: 1 }, 90 * MIN)).toBe(at(15, 30))
  })
})

describe("credentialOf", () => {
  const digest = (text: string) => createHash("sha256").update(text).digest("hex")
  it("the agent alone when its config carries no key: the machine's login", () => {
    expect(credentialOf("coding-agent", {}, digest)).toBe("coding-agent")
    expect(credentialOf("coding-agent", { env: { ANTHROPIC_BASE_URL: "http://x" } }, digest)).toBe("coding-agent")
  })

  it("a digest of the key, never the key; the same key is the same credential", () => {
    const a = credentialOf("coding-agent", { env: { ANTHROPIC_API_KEY: "sk-ant-secret-1" } }, digest)
    expect(a).toMatch(/^coding-agent \(key [0-9a-f]{8}\)$/)
    expect(a).not.toContain("secret")
    expect(credentialOf("coding-agent", { model: "x", env: { ANTHROPIC_API_KEY: "sk-ant-secret-1" } }, digest)).toBe(a)
    expect(credentialOf("coding-agent", { env: { ANTHROPIC_API_KEY: "sk-ant-secret-2" } }, digest)).not.toBe(a)
    expect(credentialOf("codex", { env: { ANTHROPIC_API_KEY: "sk-ant-secret-1" } }, digest)).not.toBe(a)
  })
})

describe("clockTime: a time for people, from now", () => {
  const now = new Date(2026, 10, 26, 14, 41).getTime()
  // The zone's name is this machine's ("UTC", "CET"): the pattern leaves it open.
  it.each<[number, RegExp]>([
    [new Date(2026, 10, 26, 16, 12).getTime(), /^at 16:12 \S+$/],
    [new Date(2026, 10, 27, 9, 0).getTime(), /^tomorrow at 09:00 \S+$/],
    [new Date(2026, 10, 29, 9, 0).getTime(), /^on Nov 29 at 09:00 \S+$/]
  ])("%s → %s", (ms, expected) => {
    expect(clockTime(now)(ms)).toMatch(expected)
  })
})
