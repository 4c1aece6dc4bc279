import { describe, expect, it } from "@effect/vitest"
import { planReactions, type ReactionScope } from "../../../actors/rules/reactions.ts"
import { DEFAULT_REACTIONS } from "../../../src/config/defaults.ts"
import type { ReactionConfig, ReactionKey } from "../../../src/config/schema.ts"
import type { SessionRecord } from "../../../src/domain/session.ts"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const MIN = 60_000
const base: SessionRecord = {
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status: "working",
  activity: "active",
  branch: "feat/1",
  workspacePath: "/w",
  runtime: null,
  agent: { plugin: "command" },
  pr: { number: 7, url: "u", state: "open" },
  createdAt: "",
  updatedAt: ""
}
const at = (fields: Partial<SessionRecord>): SessionRecord => ({ ...base, ...fields })
const reactions = (overrides: Partial<Record<ReactionKey, ReactionConfig>> = {}) => ({ ...DEFAULT_REACTIONS, ...overrides })

/** Runs a sequence of record states through the planner, carrying the reaction state, and lists the effects. */
const run = (states: ReadonlyArray<Partial<SessionRecord> & { readonly now?: number }>, config = reactions(), scope: ReactionScope = {}) => {
  let previous = at({})
  const log: Array<string> = []
  for (const { now = T0, ...fields } of states) {
    const next = at({ ...fields, ...(previous.reactions ? { reactions: previous.reactions } : {}) })
    const plan = planReactions(previous, next, config, now, scope)
    log.push(plan.effects.map((e) => `${e._tag}:${e.reaction}${e._tag === "SendToAgent" ? `#${e.attempt}` : ""}`).join(",") || "-")
    previous = plan.record
  }
  return { log, record: previous }
}

describe("reaction policy", () => {
  it("ci-failed: sends to the agent on each new failure, escalates past escalateAfter (2), once", () => {
    const { log, record } = run([
      { checks: "failing" },
      { checks: "failing" },
      { checks: "pending" },
      { checks: "failing" },
      { checks: "pending" },
      { checks: "failing" },
      { checks: "pending" },
      { checks: "failing" }
    ])
    expect(log).toEqual(["SendToAgent:ci-failed#1", "-", "-", "SendToAgent:ci-failed#2", "-", "Escalate:ci-failed", "-", "-"])
    expect(record.reactions?.["ci-failed"]).toMatchObject({ attempts: 4, escalated: true })
  })

  it("attempts reset when the condition clears", () => {
    const { log, record } = run([{ checks: "failing" }, { checks: "passing" }, { checks: "failing" }])
    expect(log).toEqual(["SendToAgent:ci-failed#1", "-", "SendToAgent:ci-failed#1"])
    expect(record.reactions?.["ci-failed"]?.attempts).toBe(1)
  })

  it("retries bounds send-to-agent without escalateAfter", () => {
    const config = reactions({ "ci-failed": { auto: true, action: "send-to-agent", retries: 1 } })
    const { log } = run([{ checks: "failing" }, { checks: "pending" }, { checks: "failing" }, { checks: "pending" }, { checks: "failing" }], config)
    expect(log).toEqual(["SendToAgent:ci-failed#1", "-", "SendToAgent:ci-failed#2", "-", "Escalate:ci-failed"])
  })

  it("a duration escalateAfter escalates once the condition has lasted that long", () => {
    const { log } = run([
      { review: "changes_requested", now: T0 },
      { review: "changes_requested", now: T0 + 29 * MIN },
      { review: "changes_requested", now: T0 + 30 * MIN },
      { review: "changes_requested", now: T0 + 31 * MIN }
    ])
    expect(log).toEqual(["SendToAgent:changes-requested#1", "-", "Escalate:changes-requested", "-"])
  })

  it("the first trigger time survives a re-trigger, so a duration counts from the first occurrence", () => {
    const { log } = run([
      { mergeable: false, now: T0 },
      { mergeable: null, now: T0 + 10 * MIN },
      { mergeable: false, now: T0 + 12 * MIN },
      { mergeable: false, now: T0 + 15 * MIN }
    ])
    expect(log).toEqual(["SendToAgent:merge-conflicts#1", "-", "SendToAgent:merge-conflicts#2", "Escalate:merge-conflicts"])
  })

  it.each<[string, Partial<SessionRecord>, string]>([
    ["agent-stuck notifies urgently", { status: "stuck" }, "Notify:agent-stuck"],
    ["agent-needs-input notifies", { status: "needs_input", activity: "waiting_input" }, "Notify:agent-needs-input"],
    ["agent-exited notifies", { status: "errored", activity: "exited" }, "Notify:agent-exited"],
    ["approved-and-green (auto false) is recorded but not acted on", { status: "mergeable" }, "Notify:approved-and-green"]
  ])("%s", (_name, fields, effect) => {
    const plan = planReactions(base, at(fields), reactions(), T0)
    expect(plan.effects.map((e) => `${e._tag}:${e.reaction}`)).toEqual([effect])
  })

  it("notify effects carry the priority and auto flag", () => {
    const stuck = planReactions(base, at({ status: "stuck" }), reactions(), T0).effects[0]
    expect(stuck).toMatchObject({ _tag: "Notify", priority: "urgent", auto: true })
    const green = planReactions(base, at({ status: "mergeable" }), reactions(), T0).effects[0]
    expect(green).toMatchObject({ _tag: "Notify", priority: "action", auto: false })
  })

  describe("approved-and-green in a merge train project: once per readiness", () => {
    const green = { status: "mergeable", review: "approved", checks: "passing", mergeable: true } as const
    const rerun = { status: "approved", review: "approved", checks: "pending", mergeable: true } as const
    it.each<[string, ReadonlyArray<Partial<SessionRecord>>, ReactionScope, ReadonlyArray<string>]>([
      ["the train's update-branch runs its checks again: said once", [green, rerun, green, rerun, green], { mergeTrain: true }, [
        "Notify:approved-and-green",
        "-",
        "-",
        "-",
        "-"
      ]],
      ["a conflict the agent rebases away: the same readiness", [green, { ...green, status: "approved", mergeable: false }, green], { mergeTrain: true }, [
        "Notify:approved-and-green",
        "-",
        "-"
      ]],
      ["red then green: a new readiness", [green, rerun, { status: "ci_failed", review: "approved", checks: "failing" }, rerun, green], { mergeTrain: true }, [
        "Notify:approved-and-green",
        "-",
        "-",
        "-",
        "Notify:approved-and-green"
      ]],
      ["approval lost then given again: a new readiness", [green, { ...green, status: "review_pending", review: "pending" }, green], { mergeTrain: true }, [
        "Notify:approved-and-green",
        "-",
        "Notify:approved-and-green"
      ]],
      ["approved before green: said when green", [rerun, green], { mergeTrain: true }, ["-", "Notify:approved-and-green"]],
      ["without a train, each time it turns mergeable (nothing updates its branch)", [green, rerun, green], {}, [
        "Notify:approved-and-green",
        "-",
        "Notify:approved-and-green"
      ]]
    ])("%s", (_name, states, scope, expected) => {
      const said = run(states, reactions(), scope).log.map((step) => step.split(",").find((e) => e.endsWith(":approved-and-green")) ?? "-")
      expect(said).toEqual(expected)
    })
  })

  it("auto-merge when configured", () => {
    const config = reactions({ "approved-and-green": { auto: true, action: "auto-merge" } })
    expect(planReactions(base, at({ status: "mergeable" }), config, T0).effects).toEqual([{ _tag: "AutoMerge", reaction: "approved-and-green" }])
  })

  it("auto: false send-to-agent does nothing but still counts", () => {
    const config = reactions({ "ci-failed": { auto: false, action: "send-to-agent" } })
    const plan = planReactions(base, at({ checks: "failing" }), config, T0)
    expect(plan.effects).toEqual([])
    expect(plan.record.reactions?.["ci-failed"]?.attempts).toBe(1)
  })

  it("no change, no new record", () => {
    const record = at({})
    expect(planReactions(record, record, reactions(), T0).record).toBe(record)
  })
})
