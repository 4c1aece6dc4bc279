import { assert, describe, it } from "@effect/vitest"
import {
  admission,
  afterAnswer,
  afterRateLimited,
  FRESH,
  type GovernorState,
  MAX_BACKOFF_MS,
  retryAfterUntil,
  tightestBudget
} from "../../../src/plugins/repohost/governor.ts"

const NOW = 1_000_000
const core = { limit: 5000, remaining: 4000, reset: 2000, resource: "core" }
const graphql = { limit: 5000, remaining: 100, reset: 3000, resource: "graphql" }
const rate = (remaining: number, reset = 2000, resource = "core") => ({
  "x-ratelimit-limit": "5000",
  "x-ratelimit-remaining": String(remaining),
  "x-ratelimit-reset": String(reset),
  "x-ratelimit-resource": resource
})

describe("repohost governor: may a request go now", () => {
  it.each<[string, GovernorState, ReturnType<typeof admission>]>([
    ["nothing known: send", FRESH, { _tag: "Send", state: FRESH }],
    ["paused until later: wait for the rest of the pause", { ...FRESH, pausedUntil: NOW + 500 }, { _tag: "Wait", untilMs: NOW + 500, waitMs: 500 }],
    ["the pause ends now: send, and forget it", { ...FRESH, pausedUntil: NOW }, { _tag: "Send", state: FRESH }],
    ["a pause long over: send, and forget it", { ...FRESH, pausedUntil: NOW - 1 }, { _tag: "Send", state: FRESH }]
  ])("%s", (_, state, decision) => {
    assert.deepStrictEqual(admission(state, NOW), decision)
  })
})

describe("repohost governor: what an answer teaches it", () => {
  it.each<[string, GovernorState, number, Record<string, string>, GovernorState]>([
    ["a budget is remembered per resource", FRESH, 200, rate(4000), { budgets: { core }, serverErrors: 0 }],
    ["a second resource joins the first", { budgets: { core }, serverErrors: 0 }, 200, rate(100, 3000, "graphql"), {
      budgets: { core, graphql },
      serverErrors: 0
    }],
    ["no resource header means core", FRESH, 200, { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "59", "x-ratelimit-reset": "9" }, {
      budgets: { core: { limit: 60, remaining: 59, reset: 9, resource: "core" } },
      serverErrors: 0
    }],
    ["no rate-limit headers: nothing to remember", FRESH, 200, {}, FRESH],
    ["429 with Retry-After in seconds: paused that long", FRESH, 429, { "retry-after": "30" }, { ...FRESH, pausedUntil: NOW + 30_000 }],
    ["429 with Retry-After as an HTTP date: paused until then", FRESH, 429, { "retry-after": new Date(NOW + 90_000).toUTCString() }, {
      ...FRESH,
      pausedUntil: Math.floor((NOW + 90_000) / 1000) * 1000
    }],
    ["429 without Retry-After: until the reset", FRESH, 429, rate(0, 2000), {
      budgets: { core: { ...core, remaining: 0 } },
      pausedUntil: 2_000_000,
      serverErrors: 0
    }],
    ["429 saying nothing: a minute", FRESH, 429, {}, { ...FRESH, pausedUntil: NOW + 60_000 }],
    ["403 with the budget spent: until the reset", FRESH, 403, rate(0, 2000), {
      budgets: { core: { ...core, remaining: 0 } },
      pausedUntil: 2_000_000,
      serverErrors: 0
    }],
    ["403 secondary limit (Retry-After) wins over the reset", FRESH, 403, { ...rate(10, 2000), "retry-after": "5" }, {
      budgets: { core: { ...core, remaining: 10 } },
      pausedUntil: NOW + 5000,
      serverErrors: 0
    }],
    ["403 with budget left (no permission): no pause", FRESH, 403, rate(4000), { budgets: { core }, serverErrors: 0 }],
    ["403 without rate-limit headers: no pause", FRESH, 403, {}, FRESH],
    ["a pause is never shortened", { ...FRESH, pausedUntil: NOW + 100_000 }, 429, { "retry-after": "1" }, { ...FRESH, pausedUntil: NOW + 100_000 }],
    ["one server error: counted, no pause", FRESH, 502, {}, { ...FRESH, serverErrors: 1 }],
    ["a second in a row: paused 1 s", { ...FRESH, serverErrors: 1 }, 502, {}, { ...FRESH, serverErrors: 2, pausedUntil: NOW + 1000 }],
    ["a third: 2 s", { ...FRESH, serverErrors: 2 }, 503, {}, { ...FRESH, serverErrors: 3, pausedUntil: NOW + 2000 }],
    ["a fifth: 8 s", { ...FRESH, serverErrors: 4 }, 500, {}, { ...FRESH, serverErrors: 5, pausedUntil: NOW + 8000 }],
    ["a long storm: at most five minutes", { ...FRESH, serverErrors: 40 }, 500, {}, { ...FRESH, serverErrors: 41, pausedUntil: NOW + MAX_BACKOFF_MS }],
    ["any answer below 500 ends the run", { ...FRESH, serverErrors: 3 }, 304, {}, FRESH]
  ])("%s", (_, state, status, headers, next) => {
    assert.deepStrictEqual(afterAnswer(state, { status, headers }, NOW), next)
  })

  it.each<[string, GovernorState, GovernorState]>([
    ["GraphQL RATE_LIMITED: until the GraphQL reset", { budgets: { core, graphql }, serverErrors: 0 }, {
      budgets: { core, graphql },
      serverErrors: 0,
      pausedUntil: 3_000_000
    }],
    ["GraphQL RATE_LIMITED with no GraphQL budget seen: a minute", { budgets: { core }, serverErrors: 0 }, {
      budgets: { core },
      serverErrors: 0,
      pausedUntil: NOW + 60_000
    }]
  ])("%s", (_, state, next) => {
    assert.deepStrictEqual(afterRateLimited(state, NOW), next)
  })

  it.each<[string, string | undefined, number | undefined]>([
    ["seconds", "120", NOW + 120_000],
    ["zero says nothing", "0", undefined],
    ["an HTTP date", "Wed, 21 Oct 2015 07:28:00 GMT", Date.UTC(2015, 9, 21, 7, 28)],
    ["nonsense", "soon", undefined],
    ["absent", undefined, undefined]
  ])("Retry-After %s", (_, value, until) => {
    assert.strictEqual(retryAfterUntil(value, NOW), until)
  })
})

describe("repohost governor: the budget it reports", () => {
  it.each<[string, GovernorState, ReturnType<typeof tightestBudget>]>([
    ["nothing seen", FRESH, undefined],
    ["the least share left wins", { budgets: { core, graphql }, serverErrors: 0 }, graphql],
    ["a pause rides on the tightest", { budgets: { core }, serverErrors: 0, pausedUntil: 5 }, { ...core, blockedUntil: 5 }],
    ["a pause before any budget", { ...FRESH, pausedUntil: 5 }, { limit: 0, remaining: 0, reset: 0, blockedUntil: 5 }]
  ])("%s", (_, state, budget) => {
    assert.deepStrictEqual(tightestBudget(state), budget)
  })
})
