import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import {
  clockTime,
  continueTime,
  credentialOf,
  describeLimit,
  dueToContinue,
  durationOfText,
  learned,
  limitedAgain,
  type LimitKind,
  limitKindOf,
  type RateLimit,
  resetFromText
} from "../../src/domain/rate-limit.ts"

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

  // Found limited at 14:00 while it retried by itself; it gave up at 14:03.
  const gaveUpAt = new Date(at(14, 3)).toISOString()
  it.each<[string, LimitKind | undefined, number, string | undefined, number]>([
    ["an overload: a minute after it gave up, not the 5-minute threshold", "overloaded", 1, undefined, at(14, 4)],
    ["an overload turned away again: 2 minutes", "overloaded", 2, undefined, at(14, 5)],
    ["then 4", "overloaded", 3, undefined, at(14, 7)],
    ["then 8", "overloaded", 4, undefined, at(14, 11)],
    ["an overload: at most hourly", "overloaded", 10, undefined, at(15, 3)],
    ["an overload whose retry-after passed before it gave up: a minute after it gave up", "overloaded", 1, new Date(at(14, 2)).toISOString(), at(14, 4)],
    ["an overload whose retry-after is still to come: after it", "overloaded", 1, new Date(at(14, 10)).toISOString(), at(14, 11)],
    ["a limit: the threshold counts from when it gave up", "rate_limit", 1, undefined, at(14, 8)],
    ["a limit whose retry wait passed before it gave up: a minute after it gave up", "rate_limit", 1, new Date(at(14, 2) + 30_000).toISOString(), at(14, 4)],
    ["a limit not named yet (\"API error\"): waited on like a limit", undefined, 1, undefined, at(14, 8)]
  ])("%s", (_, kind, attempts, resetAt, expected) => {
    const limit = { since, gaveUpAt, attempts, ...(kind !== undefined ? { kind } : {}), ...(resetAt !== undefined ? { resetAt } : {}) }
    expect(continueTime(limit, 5 * MIN)).toBe(expected)
  })
})

describe("a limit's record over its life", () => {
  const T0 = at(14)
  const iso = (ms: number) => new Date(ms).toISOString()
  const retrying = limitedAgain(undefined, T0, { limit: "API error · retrying in 35s · attempt 1/10", resetAt: T0 + 35_000, retrying: true }, 5 * MIN)

  it("found retrying: the reset it waits for, no give-up yet, never due while it retries", () => {
    expect(retrying).toEqual({
      since: iso(T0),
      attempts: 1,
      resetAt: iso(T0 + 35_000),
      message: "API error · retrying in 35s · attempt 1/10",
      retrying: true,
      continueAt: iso(T0 + 95_000)
    })
    expect(dueToContinue(retrying, T0 + 60 * MIN)).toBe(false)
  })

  it("a countdown read a second later is the same reset: the record does not change", () => {
    expect(learned(retrying, { resetAt: T0 + 35_800, retrying: true }, T0 + 5_000, 5 * MIN)).toBe(retrying)
  })

  it("the provider named later (the third attempt): the kind and the newer reset are learned", () => {
    const named = learned(
      retrying,
      { limit: "529 Overloaded · retrying in 35s · attempt 3/10", kind: "overloaded", resetAt: T0 + 110_000, retrying: true },
      T0 + 75_000,
      5 * MIN
    )
    expect(named).toMatchObject({ kind: "overloaded", resetAt: iso(T0 + 110_000), retrying: true })
    // It gave up at 14:05: a minute later orch tells it to continue.
    const gaveUp = learned(named, { limit: "API Error: 529 Overloaded.", kind: "overloaded", retrying: false }, T0 + 5 * MIN, 5 * MIN)
    expect(gaveUp).toMatchObject({ attempts: 1, kind: "overloaded", gaveUpAt: iso(T0 + 5 * MIN), continueAt: iso(T0 + 6 * MIN) })
    expect(gaveUp.retrying).toBeUndefined()
    expect(dueToContinue(gaveUp, T0 + 6 * MIN - 1)).toBe(false)
    expect(dueToContinue(gaveUp, T0 + 6 * MIN)).toBe(true)
    // Told to continue, then turned away again: twice as long, once per time it gave up.
    const continued: RateLimit = { ...gaveUp, continuedAt: iso(T0 + 6 * MIN) }
    expect(dueToContinue(continued, T0 + 7 * MIN)).toBe(false)
    const again = limitedAgain(continued, T0 + 7 * MIN, { limit: "API Error: 529 Overloaded.", kind: "overloaded", retrying: false }, 5 * MIN)
    expect(again).toMatchObject({ attempts: 2, continueAt: iso(T0 + 9 * MIN) })
    expect(dueToContinue(again, T0 + 9 * MIN)).toBe(true)
  })

  it("found limited by a hook or a report (no word on retries): it gave up then", () => {
    expect(limitedAgain(undefined, T0, { limit: "API Error: Request rejected (429)", kind: "rate_limit" }, 5 * MIN)).toEqual({
      since: iso(T0),
      attempts: 1,
      kind: "rate_limit",
      message: "API Error: Request rejected (429)",
      gaveUpAt: iso(T0),
      continueAt: iso(T0 + 5 * MIN)
    })
  })

  it("an observation that says nothing of retries does not end them", () => {
    expect(learned(retrying, {}, T0 + 10_000, 5 * MIN)).toBe(retrying)
  })
})

describe("describeLimit: what the agent showed and what happens next, for people", () => {
  const time = (ms: number) => `at ${new Date(ms).toISOString().slice(11, 16)}`
  const since = new Date(at(14)).toISOString()
  it.each<[string, RateLimit, string]>([
    ["a limit it gave up on", {
      since,
      attempts: 1,
      message: "API Error: Request rejected (429)",
      gaveUpAt: since,
      continueAt: new Date(at(14, 5)).toISOString()
    }, "API Error: Request rejected (429); orch tells it to continue at 14:05"],
    ["with its reset", {
      since,
      attempts: 1,
      message: "5-hour limit reached",
      resetAt: new Date(at(16, 12)).toISOString(),
      continueAt: new Date(at(16, 13)).toISOString()
    }, "5-hour limit reached; orch tells it to continue at 16:13 (the limit resets then)"],
    [
      "a limit it retries",
      {
        since,
        attempts: 1,
        message: "API error · retrying in 35s · attempt 1/10",
        resetAt: new Date(at(14) + 35_000).toISOString(),
        retrying: true,
        continueAt: new Date(at(14, 1)).toISOString()
      },
      "API error · retrying in 35s · attempt 1/10; it retries by itself, next at 14:00; should it give up, orch tells it to continue once the limit resets (an overload: a minute later, then 2, 4, 8 … minutes)"
    ],
    [
      "a limit named, retried",
      {
        since,
        attempts: 1,
        kind: "rate_limit",
        message: "429 This request would exceed… · retrying in 7s · attempt 5/10",
        retrying: true,
        continueAt: new Date(at(14, 1)).toISOString()
      },
      "429 This request would exceed… · retrying in 7s · attempt 5/10; it retries by itself; orch tells it to continue once the limit resets after it gives up"
    ],
    [
      "an overload it retries",
      {
        since,
        attempts: 1,
        kind: "overloaded",
        message: "529 Overloaded · retrying in 3s · attempt 3/10",
        retrying: true,
        continueAt: new Date(at(14, 1)).toISOString()
      },
      "529 Overloaded · retrying in 3s · attempt 3/10; it retries by itself; orch tells it to continue a minute after it gives up (then 2, 4, 8 … minutes while the provider stays overloaded)"
    ],
    [
      "an overload it gave up on",
      { since, attempts: 1, kind: "overloaded", message: "API Error: 529 Overloaded.", gaveUpAt: since, continueAt: new Date(at(14, 1)).toISOString() },
      "API Error: 529 Overloaded.; the provider is overloaded; orch tells it to continue at 14:01 (a minute after it gave up, then 2, 4, 8 … minutes while it stays overloaded)"
    ]
  ])("%s", (_, limit, expected) => {
    expect(describeLimit(limit, time)).toBe(expected)
  })
})

describe("limitKindOf: what a message names", () => {
  it.each<[string, LimitKind | undefined]>([
    ["429 This request would exceed your account's rate limit. Please try again later.", "rate_limit"],
    ["API Error: Request rejected (429) · This request would exceed your account's rate limit.", "rate_limit"],
    ["5-hour limit reached · retrying in 4s (4:12pm) · attempt 4/10", "rate_limit"],
    ["API Error: 529 Overloaded. This is a server-side issue, usually temporary", "overloaded"],
    ["We’re currently experiencing high demand, which may cause temporary errors.", "overloaded"],
    ["exceeded retry limit, last status: 429 Too Many Requests", "rate_limit"],
    ["API error", undefined],
    ["500 Internal server error", undefined]
  ])("%s → %s", (text, kind) => {
    expect(limitKindOf(text)).toBe(kind)
  })
})

describe("durationOfText: a wait as agents show it", () => {
  it.each<[string, number | undefined]>([
    ["35s", 35_000],
    ["1m 5s", 65_000],
    ["5m", 5 * MIN],
    ["1h", 60 * MIN],
    ["1h 2m 3s", 62 * MIN + 3000],
    ["2d 3h 4m", 2 * 24 * 60 * MIN + 184 * MIN],
    ["soon", undefined],
    ["", undefined],
    ["35", undefined]
  ])("%s → %s", (text, ms) => {
    expect(durationOfText(text)).toBe(ms)
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
