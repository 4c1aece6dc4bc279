/**
 * The activity rule as a table, under explicit time: quiescence (output → active, quiet for quietMs → ready),
 * then idle and stuck by the lifecycle's time rules; screen patterns where they match; hooks while they speak;
 * reports while they hold. Each row is one observation folded by `decide` into a record.
 */
import { describe, expect, it } from "@effect/vitest"
import { screenReading } from "../../../actors/rules/activity-rule.ts"
import { decide, type LifecycleRules, type Observation } from "../../../actors/rules/lifecycle.ts"
import type { AgentWord, SessionRecord } from "../../../src/domain/session.ts"
import { defaultRules, workingSession } from "../../support/session-record.ts"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()
const S = 1000
const MIN = 60 * S
const rules: LifecycleRules = defaultRules

const session = (fields: Partial<SessionRecord> = {}): SessionRecord => workingSession(T0, fields)
const ready = (since = T0) => ({ status: "ready", activity: "ready", activitySince: iso(since) }) as const
const idle = (since = T0) => ({ status: "idle", activity: "idle", activitySince: iso(since) }) as const
const said = (by: AgentWord["by"], activity: AgentWord["activity"], at: number, more: Partial<AgentWord> = {}): AgentWord => ({
  by,
  activity,
  at: iso(at),
  ...more
})
const probe = (lastOutputAt?: number, screen?: SessionRecord["activity"]): Observation => ({
  _tag: "Probe",
  liveness: "alive",
  ...(lastOutputAt !== undefined ? { lastOutputAt } : {}),
  ...(screen !== undefined ? { screen } : {})
})
const report = (
  activity: AgentWord["activity"],
  at: number,
  more: { report?: "active" | "ready" | "waiting_input" | "done"; note?: string } = {}
): Extract<Observation, { _tag: "Signal" }> => ({
  _tag: "Signal",
  by: "report",
  activity,
  at,
  ...more
})

type Row = [string, SessionRecord, Observation, number, Partial<SessionRecord>, Array<string>]

describe("activity rule: quiescence", () => {
  it.each<Row>([
    ["output within quietMs: active since the output", session(ready()), probe(T0 + 10 * S), T0 + 11 * S, {
      status: "working",
      activity: "active",
      activitySince: iso(T0 + 10 * S)
    }, ["session.working"]],
    ["quiet a moment short of quietMs: still active", session(), probe(T0), T0 + 3 * S - 1, { status: "working", activity: "active" }, []],
    ["quiet for quietMs: ready, from then", session(), probe(T0), T0 + 3 * S, { ...ready(T0 + 3 * S) }, ["session.ready"]],
    ["ready stays ready while quiet", session(ready()), probe(T0 - S), T0 + MIN, { ...ready() }, []],
    ["ready → idle after readyThresholdMs of quiet", session(ready()), probe(T0 - S), T0 + 5 * MIN, { ...idle(T0 + 5 * MIN) }, ["session.idle"]],
    ["a quiet screen never wakes an idle session", session(idle()), probe(T0 - S), T0 + 30 * MIN, { ...idle() }, []],
    ["new output wakes it", session(idle()), probe(T0 + 30 * MIN), T0 + 30 * MIN + S, {
      status: "working",
      activity: "active",
      activitySince: iso(T0 + 30 * MIN)
    }, ["session.working"]],
    ["output is progress: an agent that keeps printing is never stuck", session(), probe(T0 + 12 * MIN), T0 + 12 * MIN + S, {
      status: "working",
      activitySince: iso(T0 + 12 * MIN)
    }, []],
    ["output later than now (tmux's whole seconds) counts from now", session(ready()), probe(T0 + 10 * S + 999), T0 + 10 * S, {
      activity: "active",
      activitySince: iso(T0 + 10 * S)
    }, ["session.working"]],
    ["a runtime that cannot tell its output time: unchanged", session(), probe(), T0 + 9 * MIN, { status: "working", activity: "active" }, []],
    ["...and the old rule: active for the stuck threshold is stuck", session(), probe(), T0 + 10 * MIN, { status: "stuck", activity: "active" }, [
      "session.stuck"
    ]]
  ])("%s", (_name, before, observation, now, expected, events) => {
    const decision = decide(before, observation, now, rules)
    expect(decision.record).toMatchObject(expected)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })
})

describe("activity rule: screen patterns", () => {
  it.each<Row>([
    ["a recognised question wins over output", session(), probe(T0 + MIN, "waiting_input"), T0 + MIN, { status: "needs_input", activity: "waiting_input" }, [
      "session.needs_input"
    ]],
    ["a recognised prompt wins over output", session(), probe(T0 + MIN, "ready"), T0 + MIN, { ...ready(T0 + MIN) }, ["session.ready"]],
    ["a screen it does not recognise: quiescence", session(), probe(T0, undefined), T0 + MIN, { ...ready(T0 + MIN) }, ["session.ready"]],
    ["its busy marker animates by itself: not progress, busy for the threshold is stuck", session(), probe(T0 + 10 * MIN, "active"), T0 + 10 * MIN, {
      status: "stuck",
      activitySince: iso(T0)
    }, ["session.stuck"]],
    ["a recognised prompt does not wake an idle session", session(idle()), probe(T0 + MIN, "ready"), T0 + MIN, { ...idle() }, []]
  ])("%s", (_name, before, observation, now, expected, events) => {
    const decision = decide(before, observation, now, rules)
    expect(decision.record).toMatchObject(expected)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })
})

describe("activity rule: hooks win while they speak", () => {
  const hooked = (activity: AgentWord["activity"], at: number, fields: Partial<SessionRecord> = {}) =>
    session({ activity, activitySince: iso(at), said: said("hook", activity, at), ...fields })
  it.each<Row>([
    ["a hook 59 s ago: the screen is not heeded", hooked("active", T0), probe(T0 - MIN, "ready"), T0 + 59 * S, { status: "working", activity: "active" }, []],
    ["a hook 59 s ago: nor is quiescence", hooked("ready", T0, { status: "ready" }), probe(T0 + 50 * S), T0 + 59 * S, { ...ready() }, []],
    ["silent for a minute: the screen decides", hooked("active", T0), probe(T0 - MIN, "ready"), T0 + MIN, { ...ready(T0 + MIN) }, ["session.ready"]],
    ["silent for a minute and a screen it does not recognise: quiescence", hooked("active", T0), probe(T0), T0 + MIN, { ...ready(T0 + MIN) }, [
      "session.ready"
    ]],
    ["no hook for the stuck threshold while its busy marker shows: stuck", hooked("active", T0), probe(T0 + 10 * MIN, "active"), T0 + 10 * MIN, {
      status: "stuck"
    }, ["session.stuck"]],
    ["a hook event is progress", hooked("active", T0), { _tag: "Signal", by: "hook", activity: "active", at: T0 + 9 * MIN }, T0 + 9 * MIN, {
      status: "working",
      activitySince: iso(T0 + 9 * MIN),
      said: said("hook", "active", T0 + 9 * MIN)
    }, []],
    // The screen decides one thing over speaking hooks: a limit the agent retries (its hooks cannot tell).
    ["a hook 20 s ago and the screen shows a refused request retried: rate_limited", hooked("active", T0), probe(T0 + 20 * S, "rate_limited"), T0 + 20 * S, {
      status: "rate_limited",
      activity: "rate_limited",
      activitySince: iso(T0 + 20 * S)
    }, ["session.rate_limited"]],
    [
      "the retry got through (the screen shows it busy again): the hooks' word stands",
      hooked("active", T0, { status: "rate_limited", activity: "rate_limited", activitySince: iso(T0 + 20 * S) }),
      probe(T0 + 30 * S, "active"),
      T0 + 30 * S,
      { status: "working", activity: "active" },
      ["session.working"]
    ],
    [
      "a screen it cannot read says nothing about the limit",
      hooked("active", T0, { status: "rate_limited", activity: "rate_limited", activitySince: iso(T0 + 20 * S) }),
      probe(T0 + 30 * S),
      T0 + 30 * S,
      { status: "rate_limited", activity: "rate_limited" },
      []
    ],
    // Or a request it retries after a server error: waiting on its provider, not working on its task.
    [
      "a hook 20 s ago and the screen shows a failed request retried: retrying, still working",
      hooked("active", T0),
      probe(T0 + 20 * S, "retrying"),
      T0 + 20 * S,
      {
        status: "working",
        activity: "retrying",
        activitySince: iso(T0 + 20 * S)
      },
      []
    ],
    [
      "the retry got through: the hooks' word stands again",
      hooked("active", T0, { activity: "retrying", activitySince: iso(T0 + 20 * S) }),
      probe(T0 + 30 * S, "active"),
      T0 + 30 * S,
      { status: "working", activity: "active" },
      []
    ],
    [
      "the end of a refused request's countdown reads like a failed one's retry: still rate_limited",
      hooked("active", T0, { status: "rate_limited", activity: "rate_limited", activitySince: iso(T0 + 20 * S) }),
      probe(T0 + 50 * S, "retrying"),
      T0 + 50 * S,
      { status: "rate_limited", activity: "rate_limited", activitySince: iso(T0 + 20 * S) },
      []
    ],
    [
      "and so after the hooks fell silent",
      hooked("active", T0, { status: "rate_limited", activity: "rate_limited", activitySince: iso(T0 + 20 * S) }),
      probe(T0 + 2 * MIN, "retrying"),
      T0 + 2 * MIN,
      { status: "rate_limited", activity: "rate_limited", activitySince: iso(T0 + 20 * S) },
      []
    ],
    ["a retrying agent is not stuck, however long it retries", hooked("retrying", T0), probe(T0 + 10 * MIN, "retrying"), T0 + 10 * MIN, {
      status: "working",
      activity: "retrying"
    }, []]
  ])("%s", (_name, before, observation, now, expected, events) => {
    const decision = decide(before, observation, now, rules)
    expect(decision.record).toMatchObject(expected)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })
})

describe("activity rule: a report holds until the screen contradicts it", () => {
  const reported = (activity: AgentWord["activity"], at: number, fields: Partial<SessionRecord> = {}) =>
    session({
      activity,
      status: activity === "active" ? "working" : activity === "ready" ? "ready" : "needs_input",
      activitySince: iso(at),
      said: said("report", activity, at),
      ...fields
    })
  it.each<Row>([
    ["orch report ready: ready at once", session(), report("ready", T0 + MIN, { report: "ready" }), T0 + MIN, {
      ...ready(T0 + MIN),
      said: said("report", "ready", T0 + MIN, { report: "ready" })
    }, ["session.ready"]],
    ["output right after it (a wrapper's prompt) is part of it", reported("ready", T0), probe(T0 + 3 * S), T0 + 4 * S, { ...ready() }, []],
    ["output after it has settled contradicts ready: active again, the report overruled", reported("ready", T0), probe(T0 + 3 * S + 1), T0 + 4 * S, {
      status: "working",
      activity: "active",
      said: said("report", "ready", T0, { overruled: true })
    }, ["session.working"]],
    [
      "an overruled report no longer holds: quiet → ready",
      reported("active", T0, { said: said("report", "ready", T0 - MIN, { overruled: true }) }),
      probe(T0),
      T0 + 3 * S,
      { ...ready(T0 + 3 * S) },
      ["session.ready"]
    ],
    ["orch report active holds through silence", reported("active", T0), probe(T0 - S), T0 + 9 * MIN, { status: "working", activity: "active" }, []],
    ["...until the stuck threshold: stuck", reported("active", T0), probe(T0 - S), T0 + 10 * MIN, { status: "stuck", activity: "active" }, ["session.stuck"]],
    ["output while it holds is progress: not stuck", reported("active", T0), probe(T0 + 5 * MIN), T0 + 10 * MIN, {
      status: "working",
      activitySince: iso(T0 + 5 * MIN)
    }, []],
    ["a recognised screen from later output contradicts active", reported("active", T0), probe(T0 + MIN, "waiting_input"), T0 + MIN, {
      status: "needs_input",
      said: said("report", "active", T0, { overruled: true })
    }, ["session.needs_input"]],
    ["waiting_input holds while the screen is quiet", reported("waiting_input", T0), probe(T0 - S), T0 + 30 * MIN, {
      status: "needs_input",
      activity: "waiting_input"
    }, []],
    [
      "...and where the runtime cannot tell its output time",
      reported("waiting_input", T0),
      probe(undefined, "ready"),
      T0 + 30 * MIN,
      { status: "needs_input" },
      []
    ],
    [
      "a report wins over hooks that spoke before it",
      session({ said: said("hook", "active", T0) }),
      report("waiting_input", T0 + S, { report: "waiting_input" }),
      T0 + S,
      { status: "needs_input", said: said("report", "waiting_input", T0 + S, { report: "waiting_input" }) },
      ["session.needs_input"]
    ],
    ["a hook after it is the newer word", reported("waiting_input", T0), { _tag: "Signal", by: "hook", activity: "active", at: T0 + S }, T0 + S, {
      status: "working",
      said: said("hook", "active", T0 + S)
    }, ["session.working"]]
  ])("%s", (_name, before, observation, now, expected, events) => {
    const decision = decide(before, observation, now, rules)
    expect(decision.record).toMatchObject(expected)
    expect(decision.events.map((e) => e.type)).toEqual(events)
  })

  it("orch report done: ready, and session.reported_done with the note", () => {
    const decision = decide(session(), report("ready", T0 + MIN, { report: "done", note: "PR #7 is open" }), T0 + MIN, rules)
    expect(decision.record).toMatchObject({ ...ready(T0 + MIN), said: said("report", "ready", T0 + MIN, { report: "done", note: "PR #7 is open" }) })
    expect(decision.events).toEqual([
      { type: "session.reported_done", sessionId: "app-1", projectId: "app", message: "PR #7 is open", data: { note: "PR #7 is open" } },
      { type: "session.ready", sessionId: "app-1", projectId: "app", data: { from: "working", activity: "ready" } }
    ])
  })

  it("a signal records how far the activity file was read, never backwards", () => {
    const read = decide(session({ signalOffset: 40 }), { ...report("ready", T0), offset: 90 }, T0, rules).record
    expect(read.signalOffset).toBe(90)
    expect(decide(read, { ...report("active", T0), offset: 10 }, T0, rules).record.signalOffset).toBe(90)
  })
})

describe("screenReading", () => {
  it.each<[string, Parameters<typeof screenReading>[0], string | undefined]>([
    ["nothing known", {}, undefined],
    ["recent output", { lastOutputAt: T0 - 2 * S }, "active"],
    ["quiet", { lastOutputAt: T0 - 3 * S }, "ready"],
    ["a recognised screen first", { lastOutputAt: T0 - 3 * S, screen: "waiting_input" }, "waiting_input"]
  ])("%s → %s", (_name, facts, expected) => {
    expect(screenReading(facts, T0, rules)).toBe(expected)
  })
})
