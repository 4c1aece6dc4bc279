/**
 * A rate-limited agent, through the lifecycle and the reaction policy together (both pure): found limited (a
 * Claude Code StopFailure, a screen, a report), notified once, told to continue at the reset or on the backoff,
 * counted again when turned away again, forgotten once its turn ends normally.
 */
import { describe, expect, it } from "@effect/vitest"
import { decide, type LifecycleRules, type Observation } from "../../../actors/rules/lifecycle.ts"
import { planReactions } from "../../../actors/rules/reactions.ts"
import { DEFAULT_REACTIONS } from "../../../src/config/defaults.ts"
import type { ReactionConfig, ReactionKey } from "../../../src/config/schema.ts"
import type { SessionRecord } from "../../../src/domain/session.ts"
import { defaultRules, workingSession } from "../../support/session-record.ts"

const T0 = Date.parse("2026-01-01T14:00:00.000Z")
const MIN = 60_000
const iso = (ms: number) => new Date(ms).toISOString()
const rules: LifecycleRules = defaultRules
const MESSAGE = "API Error: Request rejected (429) · This request would exceed your account's rate limit."

const start: SessionRecord = workingSession(T0, { agent: { plugin: "coding-agent" } })

const limited = (at: number, extra: Partial<Extract<Observation, { _tag: "Signal" }>> = {}): Observation => ({
  _tag: "Signal",
  by: "hook",
  activity: "rate_limited",
  at,
  limit: MESSAGE,
  ...extra
})
const hook = (activity: "active" | "ready", at: number): Observation => ({ _tag: "Signal", by: "hook", activity, at })

type Step = readonly [at: number, observation: Observation]

/** Runs observations through decide and planReactions as the session actor does; lists events and effects per step. */
const run = (steps: ReadonlyArray<Step>, reactions: Record<ReactionKey, ReactionConfig> = DEFAULT_REACTIONS) => {
  let record = start
  const log: Array<string> = []
  for (const [now, observation] of steps) {
    const decision = decide(record, observation, now, rules)
    const plan = planReactions(record, decision.record, reactions, now)
    log.push(
      [
        ...decision.events.map((e) => e.type),
        ...plan.effects.map((e) => `${e._tag}${e._tag === "SendToAgent" ? `:${e.message}` : ""}`)
      ].join(" ") || "-"
    )
    record = plan.record
  }
  return { log, record }
}

describe("rate limits: lifecycle and reactions", () => {
  it("found limited: status rate_limited, one event with when orch continues, one notification", () => {
    const { log, record } = run([[T0 + MIN, limited(T0 + MIN)]])
    expect(log).toEqual(["session.rate_limited Notify"])
    expect(record.status).toBe("rate_limited")
    expect(record.rateLimit).toEqual({ since: iso(T0 + MIN), attempts: 1, message: MESSAGE, gaveUpAt: iso(T0 + MIN), continueAt: iso(T0 + 6 * MIN) })
    const event = decide(start, limited(T0 + MIN), T0 + MIN, rules).events[0]!
    expect(event).toMatchObject({ message: MESSAGE, data: { from: "working", activity: "rate_limited", attempts: 1, continueAt: iso(T0 + 6 * MIN) } })
  })

  it("no reset time known: told to continue once after the backoff, which doubles while it is turned away again", () => {
    const continued = `SendToAgent:${DEFAULT_REACTIONS["agent-rate-limited"].continueMessage}`
    const { log, record } = run([
      [T0 + MIN, limited(T0 + MIN)],
      [T0 + 6 * MIN - 1, { _tag: "Tick" }],
      [T0 + 6 * MIN, { _tag: "Tick" }],
      [T0 + 6 * MIN + 1000, { _tag: "Tick" }],
      [T0 + 6 * MIN + 2000, hook("active", T0 + 6 * MIN + 2000)],
      [T0 + 9 * MIN, limited(T0 + 9 * MIN)],
      [T0 + 19 * MIN - 1, { _tag: "Tick" }],
      [T0 + 19 * MIN, { _tag: "Tick" }]
    ])
    expect(log).toEqual([
      "session.rate_limited Notify",
      "-",
      continued,
      "-",
      "session.working",
      // Turned away again: counted, not notified again; the next try waits twice as long.
      "session.rate_limited",
      "-",
      continued
    ])
    expect(record.rateLimit).toMatchObject({ attempts: 2, continueAt: iso(T0 + 19 * MIN), continuedAt: iso(T0 + 19 * MIN) })
  })

  it("a reset time the agent named: told to continue at the end of its minute", () => {
    const reset = T0 + 2 * 60 * MIN
    const { log, record } = run([
      [T0 + MIN, limited(T0 + MIN, { resetAt: reset })],
      [reset, { _tag: "Tick" }],
      [reset + 60_000, { _tag: "Tick" }]
    ])
    expect(log).toEqual(["session.rate_limited Notify", "-", `SendToAgent:${DEFAULT_REACTIONS["agent-rate-limited"].continueMessage}`])
    expect(record.rateLimit?.resetAt).toBe(iso(reset))
  })

  it("a reset time seen only later (the screen names it, the hook did not) moves when orch continues; the newest message wins", () => {
    const reset = T0 + 60 * MIN
    const { record } = run([
      [T0 + MIN, limited(T0 + MIN)],
      [T0 + 2 * MIN, { _tag: "Probe", liveness: "alive", screen: "rate_limited", limit: "5-hour limit reached · retrying in 4s (3:00pm)", resetAt: reset }]
    ])
    expect(record.rateLimit).toMatchObject({
      attempts: 1,
      resetAt: iso(reset),
      message: "5-hour limit reached · retrying in 4s (3:00pm)",
      continueAt: iso(reset + 60_000)
    })
  })

  it("turned away again before a reset it named: the reset still holds", () => {
    const reset = T0 + 2 * 60 * MIN
    const { record } = run([
      [T0 + MIN, limited(T0 + MIN, { resetAt: reset })],
      [T0 + 2 * MIN, hook("active", T0 + 2 * MIN)],
      [T0 + 3 * MIN, limited(T0 + 3 * MIN)]
    ])
    expect(record.rateLimit).toMatchObject({ attempts: 2, resetAt: iso(reset), continueAt: iso(reset + 60_000) })
  })

  it("a turn that ends normally forgets the limit: the next one is notified again", () => {
    const { log, record } = run([
      [T0 + MIN, limited(T0 + MIN)],
      [T0 + 6 * MIN, { _tag: "Tick" }],
      [T0 + 7 * MIN, hook("active", T0 + 7 * MIN)],
      [T0 + 8 * MIN, hook("ready", T0 + 8 * MIN)],
      [T0 + 9 * MIN, limited(T0 + 9 * MIN)]
    ])
    expect(log.at(-2)).toBe("session.ready")
    expect(log.at(-1)).toBe("session.rate_limited Notify")
    expect(record.rateLimit?.attempts).toBe(1)
  })

  it("auto: false: notified, never told to continue", () => {
    const reactions = { ...DEFAULT_REACTIONS, "agent-rate-limited": { ...DEFAULT_REACTIONS["agent-rate-limited"], auto: false } }
    const { log } = run([[T0 + MIN, limited(T0 + MIN)], [T0 + 60 * MIN, { _tag: "Tick" }]], reactions)
    expect(log).toEqual(["session.rate_limited Notify", "-"])
  })

  it("a reaction written whole without a continueMessage (reactions: replaces the default) still continues, with the default message", () => {
    const reactions = { ...DEFAULT_REACTIONS, "agent-rate-limited": { auto: true, action: "notify" as const } }
    const { log } = run([[T0, limited(T0)], [T0 + 5 * MIN, { _tag: "Tick" }]], reactions)
    expect(log).toEqual(["session.rate_limited Notify", `SendToAgent:${DEFAULT_REACTIONS["agent-rate-limited"].continueMessage}`])
  })

  it("a rate-limited agent is not stuck, however long it waits", () => {
    const { record } = run([[T0 + MIN, limited(T0 + MIN)], [T0 + 59 * MIN, { _tag: "Tick" }]], {
      ...DEFAULT_REACTIONS,
      "agent-rate-limited": { ...DEFAULT_REACTIONS["agent-rate-limited"], auto: false }
    })
    expect(record.status).toBe("rate_limited")
  })

  const retryScreen = (at: number, line: string, waitS: number, extra: Partial<Extract<Observation, { _tag: "Probe" }>> = {}): Observation => ({
    _tag: "Probe",
    liveness: "alive",
    screen: "rate_limited",
    limit: line,
    resetAt: at + waitS * 1000,
    retrying: true,
    ...extra
  })

  it("a retry screen (a 429's retry-after): rate_limited with the reset it shows, notified; never told to continue while it retries", () => {
    const line = "API error · retrying in 35s · attempt 1/10"
    const { log, record } = run([
      [T0 + MIN, retryScreen(T0 + MIN, line, 35)],
      [
        T0 + 2 * MIN,
        retryScreen(T0 + 2 * MIN, "429 This request would exceed your account's rate limit. · retrying in 35s · attempt 3/10", 35, { kind: "rate_limit" })
      ],
      [T0 + 60 * MIN, { _tag: "Tick" }]
    ])
    expect(log).toEqual(["session.rate_limited Notify", "-", "-"])
    expect(record.rateLimit).toMatchObject({ attempts: 1, kind: "rate_limit", retrying: true, resetAt: iso(T0 + 2 * MIN + 35_000) })
    const event = decide(start, retryScreen(T0 + MIN, line, 35), T0 + MIN, rules).events[0]!
    expect(event).toMatchObject({
      message: line,
      data: { from: "working", activity: "rate_limited", attempts: 1, retrying: true, resetAt: iso(T0 + MIN + 35_000) }
    })
  })

  it("a retry that gets through: the turn ends normally, the limit is forgotten (recovery)", () => {
    const { log, record } = run([
      [T0 + MIN, retryScreen(T0 + MIN, "API error · retrying in 35s · attempt 1/10", 35)],
      [T0 + MIN + 40_000, hook("ready", T0 + MIN + 40_000)]
    ])
    expect(log).toEqual(["session.rate_limited Notify", "session.ready"])
    expect(record.rateLimit).toBeUndefined()
    expect(record.reactions).toBeUndefined()
  })

  it("an overload it gave up on: told to continue a minute after it gave up, then 2 minutes after it gave up again", () => {
    const overloaded = (at: number) => limited(at, { limit: "API Error: 529 Overloaded.", kind: "overloaded", retrying: false })
    const continued = `SendToAgent:${DEFAULT_REACTIONS["agent-rate-limited"].continueMessage}`
    const { log, record } = run([
      [T0, retryScreen(T0, "529 Overloaded · retrying in 8s · attempt 5/10", 8, { kind: "overloaded" })],
      [T0 + 3 * MIN, overloaded(T0 + 3 * MIN)],
      [T0 + 4 * MIN - 1, { _tag: "Tick" }],
      [T0 + 4 * MIN, { _tag: "Tick" }],
      [T0 + 4 * MIN + 2000, hook("active", T0 + 4 * MIN + 2000)],
      [T0 + 5 * MIN, overloaded(T0 + 5 * MIN)],
      [T0 + 7 * MIN - 1, { _tag: "Tick" }],
      [T0 + 7 * MIN, { _tag: "Tick" }]
    ])
    expect(log).toEqual(["session.rate_limited Notify", "-", "-", continued, "session.working", "session.rate_limited", "-", continued])
    expect(record.rateLimit).toMatchObject({ attempts: 2, kind: "overloaded", gaveUpAt: iso(T0 + 5 * MIN), continueAt: iso(T0 + 7 * MIN) })
  })

  it("seen retrying again after orch told it to continue (no probe saw it work between): turned away again", () => {
    const { record } = run([
      [T0, limited(T0, { kind: "overloaded", retrying: false })],
      [T0 + MIN, { _tag: "Tick" }],
      [T0 + MIN + 5000, retryScreen(T0 + MIN + 5000, "529 Overloaded · retrying in 8s · attempt 3/10", 8, { kind: "overloaded" })]
    ])
    expect(record.rateLimit).toMatchObject({ attempts: 2, retrying: true, since: iso(T0 + MIN + 5000) })
  })

  it("a server error it retries (a 500): retrying, still working, no limit, no notification", () => {
    const { log, record } = run([
      [T0 + MIN, { _tag: "Probe", liveness: "alive", screen: "retrying" }],
      [T0 + 2 * MIN, hook("ready", T0 + 2 * MIN)]
    ])
    expect(log).toEqual(["-", "session.ready"])
    expect(record.rateLimit).toBeUndefined()
    const retrying = decide(start, { _tag: "Probe", liveness: "alive", screen: "retrying" }, T0 + MIN, rules).record
    expect([retrying.status, retrying.activity]).toEqual(["working", "retrying"])
  })
})
