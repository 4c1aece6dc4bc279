import { describe, expect, it } from "@effect/vitest"
import { decide, deriveStatus, type LifecycleRules, type Observation } from "../../../actors/rules/lifecycle.ts"
import type { SessionRecord } from "../../../src/domain/session.ts"
import { defaultRules, workingSession } from "../../support/session-record.ts"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()
const MIN = 60_000
const rules: LifecycleRules = defaultRules

const session = (fields: Partial<SessionRecord> = {}): SessionRecord => workingSession(T0, fields)
const pr = (state: "open" | "draft" | "merged" | "closed" = "open") => ({ number: 7, url: "https://github.com/acme/app/pull/7", state })
const prObs = (fields: Partial<Extract<Observation, { _tag: "PullRequest" }>> = {}): Observation => ({
  _tag: "PullRequest",
  pr: pr(),
  checks: null,
  review: null,
  mergeable: null,
  ...fields
})

describe("lifecycle: activity and time", () => {
  it.each<[string, SessionRecord, Observation, number, Partial<SessionRecord>, Array<string>]>([
    ["a Stop signal makes it ready", session(), { _tag: "Signal", by: "hook", activity: "ready", at: T0 + MIN }, T0 + MIN, {
      status: "ready",
      activity: "ready",
      activitySince: iso(T0 + MIN)
    }, ["session.ready"]],
    ["ready stays ready before readyThresholdMs", session({ status: "ready", activity: "ready" }), { _tag: "Tick" }, T0 + 5 * MIN - 1, {
      status: "ready",
      activity: "ready"
    }, []],
    ["ready → idle after readyThresholdMs", session({ status: "ready", activity: "ready" }), { _tag: "Tick" }, T0 + 5 * MIN, {
      status: "idle",
      activity: "idle"
    }, ["session.idle"]],
    [
      "idle → working on new activity",
      session({ status: "idle", activity: "idle" }),
      { _tag: "Signal", by: "hook", activity: "active", at: T0 + 20 * MIN },
      T0 + 20 * MIN,
      { status: "working", activity: "active" },
      ["session.working"]
    ],
    [
      "active signals keep it from being stuck",
      session({ activitySince: iso(T0) }),
      { _tag: "Signal", by: "hook", activity: "active", at: T0 + 9 * MIN },
      T0 + 9 * MIN,
      { status: "working", activitySince: iso(T0 + 9 * MIN) },
      []
    ],
    ["no activity for the stuck threshold while working: stuck", session(), { _tag: "Tick" }, T0 + 10 * MIN, { status: "stuck", activity: "active" }, [
      "session.stuck"
    ]],
    ["not stuck a moment before the threshold", session(), { _tag: "Tick" }, T0 + 10 * MIN - 1, { status: "working" }, []],
    ["an idle agent is never stuck", session({ status: "idle", activity: "idle" }), { _tag: "Tick" }, T0 + 60 * MIN, { status: "idle" }, []],
    ["stuck clears on activity", session({ status: "stuck" }), { _tag: "Signal", by: "hook", activity: "active", at: T0 + 11 * MIN }, T0 + 11 * MIN, {
      status: "working"
    }, ["session.working"]],
    ["a permission prompt: needs_input", session(), { _tag: "Signal", by: "hook", activity: "waiting_input", at: T0 + MIN }, T0 + MIN, {
      status: "needs_input",
      activity: "waiting_input"
    }, ["session.needs_input"]],
    ["blocked also needs a person", session(), { _tag: "Signal", by: "hook", activity: "blocked", at: T0 + MIN }, T0 + MIN, {
      status: "needs_input",
      activity: "blocked"
    }, ["session.needs_input"]],
    ["the screen is the fallback when the probe reads it", session({ activity: "unknown" }), { _tag: "Probe", liveness: "alive", screen: "ready" }, T0 + MIN, {
      status: "ready",
      activity: "ready"
    }, ["session.ready"]],
    [
      "a screen showing the prompt does not wake an idle session",
      session({ status: "idle", activity: "idle" }),
      { _tag: "Probe", liveness: "alive", screen: "ready" },
      T0 + 20 * MIN,
      { status: "idle", activity: "idle", activitySince: iso(T0) },
      []
    ],
    [
      "a screen showing a question does",
      session({ status: "idle", activity: "idle" }),
      { _tag: "Probe", liveness: "alive", screen: "waiting_input" },
      T0 + 20 * MIN,
      { status: "needs_input", activity: "waiting_input" },
      ["session.needs_input"]
    ]
  ])("%s", (_name, before, observation, now, expected, events) => {
    const decision = decide(before, observation, now, rules)
    expect(decision.record).toMatchObject(expected)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })

  it("stuck detection can be turned off", () => {
    expect(decide(session(), { _tag: "Tick" }, T0 + 99 * MIN, { ...rules, stuckThresholdMs: undefined }).record.status).toBe("working")
  })
})

describe("lifecycle: liveness", () => {
  it("a session is declared exited only after several failed probes in a row", () => {
    let record = session()
    const statuses: Array<string> = []
    for (const liveness of ["gone", "gone", "alive", "gone", "exited", "gone"] as const) {
      const decision = decide(record, { _tag: "Probe", liveness }, T0 + MIN, rules)
      record = decision.record
      statuses.push(`${record.activity}/${record.deadProbes ?? 0}${decision.events.map((e) => ` ${e.type}`).join("")}`)
    }
    expect(statuses).toEqual(["active/1", "active/2", "active/0", "active/1", "active/2", "exited/3 session.exited"])
    expect(record.status).toBe("errored")
  })

  it("a probe error is unknown, never dead", () => {
    let record = session()
    for (let i = 0; i < 10; i++) record = decide(record, { _tag: "Probe", liveness: "error" }, T0 + MIN, rules).record
    expect(record.activity).toBe("active")
    expect(record.deadProbes ?? 0).toBe(0)
  })

  it("ended sessions do not change", () => {
    const killed = session({ status: "killed", activity: "exited" })
    expect(decide(killed, { _tag: "Signal", by: "hook", activity: "active", at: T0 }, T0, rules)).toEqual({ record: killed, events: [] })
  })

  it("an unchanged observation returns the same record and no events", () => {
    const record = session()
    expect(decide(record, { _tag: "Probe", liveness: "alive" }, T0 + MIN, rules).record).toBe(record)
  })
})

describe("lifecycle: pull requests", () => {
  it.each<[string, SessionRecord, Observation, string, Array<string>]>([
    ["a PR appears", session(), prObs(), "working", ["pr.created"]],
    ["checks fail", session({ pr: pr() }), prObs({ checks: "failing" }), "ci_failed", ["ci.failed"]],
    ["checks pass", session({ pr: pr(), checks: "failing" }), prObs({ checks: "passing" }), "review_pending", ["ci.passed"]],
    ["changes requested", session({ pr: pr(), checks: "passing" }), prObs({ checks: "passing", review: "changes_requested" }), "changes_requested", [
      "review.changes_requested"
    ]],
    [
      "approved, green, no conflicts: mergeable",
      session({ pr: pr(), checks: "passing" }),
      prObs({ checks: "passing", review: "approved", mergeable: true }),
      "mergeable",
      ["review.approved"]
    ],
    ["approved but checks pending", session({ pr: pr() }), prObs({ checks: "pending", review: "approved" }), "approved", ["review.approved"]],
    [
      "conflicts",
      session({ pr: pr(), checks: "passing", review: "approved" }),
      prObs({ checks: "passing", review: "approved", mergeable: false }),
      "approved",
      ["merge.conflicts"]
    ],
    ["merged", session({ pr: pr() }), prObs({ pr: pr("merged") }), "merged", ["pr.merged"]],
    ["closed", session({ pr: pr() }), prObs({ pr: pr("closed") }), "done", ["pr.closed"]]
  ])("%s", (_name, before, observation, status, events) => {
    const decision = decide(before, observation, T0 + MIN, rules)
    expect(decision.record.status).toBe(status)
    expect(decision.events.map((e) => e.type)).toEqual(events)
    for (const event of decision.events) expect(event).toMatchObject({ sessionId: "app-1", prNumber: 7 })
  })
})

describe("deriveStatus precedence", () => {
  it.each<[Partial<SessionRecord>, boolean, string]>([
    [{ activity: "exited", pr: pr() }, false, "errored"],
    [{ activity: "waiting_input", pr: pr(), checks: "failing" }, false, "needs_input"],
    [{ activity: "active" }, true, "stuck"],
    [{ pr: pr("merged"), activity: "exited" }, false, "merged"],
    [{ pr: pr(), activity: "idle" }, false, "pr_open"],
    [{ activity: "unknown" }, false, "working"]
  ])("%j stuck=%s → %s", (fields, stuck, status) => {
    expect(deriveStatus(session(fields), stuck)).toBe(status)
  })
})
