import { assert, describe, it } from "@effect/vitest"
import { afterFailure, afterSuccess, HEALTHY, type LoopHealth, type LoopPolicy, tellFailure } from "../../../actors/rules/loop-health.ts"

const policy: LoopPolicy = { baseMs: 1_000, maxMs: 8_000, escalateAfter: 4, windowMs: 60_000, escalateInWindow: 6 }

type Step = readonly ["fail" | "ok", number]
interface Seen {
  readonly delays: ReadonlyArray<number>
  readonly escalations: ReadonlyArray<number>
  readonly recoveries: ReadonlyArray<number>
}

/** Runs the outcomes through the rules, collecting the delays after failures and the times of escalations and recoveries. */
const play = (steps: ReadonlyArray<Step>): Seen => {
  let health: LoopHealth = HEALTHY
  const delays: Array<number> = []
  const escalations: Array<number> = []
  const recoveries: Array<number> = []
  for (const [outcome, at] of steps) {
    if (outcome === "fail") {
      const next = afterFailure(health, at, policy)
      health = next.health
      delays.push(next.delayMs)
      if (next.escalate) escalations.push(at)
    } else {
      const next = afterSuccess(health, at, policy)
      health = next.health
      if (next.recovered) recoveries.push(at)
    }
  }
  return { delays, escalations, recoveries }
}

const fails = (...times: ReadonlyArray<number>): Array<Step> => times.map((at) => ["fail", at] as const)

describe("loop health", () => {
  it.each<[string, ReadonlyArray<Step>, Seen]>([
    ["one failure: the base delay, no escalation", fails(0), { delays: [1_000], escalations: [], recoveries: [] }],
    ["failures in a row double the delay", fails(0, 1_000, 3_000), { delays: [1_000, 2_000, 4_000], escalations: [], recoveries: [] }],
    ["escalateAfter failures in a row escalate once, more do not again; the delay stops at the cap", fails(0, 1_000, 3_000, 7_000, 15_000, 23_000), {
      delays: [1_000, 2_000, 4_000, 8_000, 8_000, 8_000],
      escalations: [7_000],
      recoveries: []
    }],
    ["a success resets the delay", [...fails(0, 1_000, 3_000), ["ok", 7_000], ...fails(8_000)], {
      delays: [1_000, 2_000, 4_000, 1_000],
      escalations: [],
      recoveries: []
    }],
    ["failures that alternate with successes escalate by the window", [
      ...fails(0),
      ["ok", 1_000],
      ...fails(2_000),
      ["ok", 3_000],
      ...fails(4_000),
      ["ok", 5_000],
      ...fails(6_000),
      ["ok", 7_000],
      ...fails(8_000),
      ["ok", 9_000],
      ...fails(10_000),
      ["ok", 11_000],
      ...fails(12_000)
    ], { delays: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000], escalations: [10_000], recoveries: [] }],
    ["failures spread wider than the window never escalate", [
      ...fails(0),
      ["ok", 1],
      ...fails(20_000),
      ["ok", 20_001],
      ...fails(40_000),
      ["ok", 40_001],
      ...fails(60_000),
      ["ok", 60_001],
      ...fails(80_000),
      ["ok", 80_001],
      ...fails(100_000)
    ], { delays: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000], escalations: [], recoveries: [] }],
    ["an episode ends with a success once the window holds no failure; then a new one can escalate", [
      ...fails(0, 1_000, 3_000, 7_000),
      ["ok", 15_000],
      ["ok", 66_000],
      ["ok", 67_001],
      ...fails(70_000, 71_000, 73_000, 77_000)
    ], { delays: [1_000, 2_000, 4_000, 8_000, 1_000, 2_000, 4_000, 8_000], escalations: [7_000, 77_000], recoveries: [67_001] }],
    ["a failure before the window empties keeps the episode on", [
      ...fails(0, 1_000, 3_000, 7_000),
      ["ok", 15_000],
      ...fails(30_000),
      ["ok", 31_000],
      ...fails(40_000, 41_000, 43_000, 47_000)
    ], { delays: [1_000, 2_000, 4_000, 8_000, 1_000, 1_000, 2_000, 4_000, 8_000], escalations: [7_000], recoveries: [] }]
  ])("%s", (_name, steps, expected) => {
    assert.deepStrictEqual(play(steps), expected)
  })

  it("a very long run of failures stays at the cap", () => {
    let health: LoopHealth = HEALTHY
    let delay = 0
    for (let i = 0; i < 2_000; i++) ({ health, delayMs: delay } = afterFailure(health, i * 8_000, policy))
    assert.strictEqual(delay, 8_000)
    assert.isAtMost(health.failures.length, 8)
  })
})

describe("what the log is told of a failing loop", () => {
  it.each(
    [
      ["the first failure of a streak", undefined, "HTTP 404", 1, "first"],
      ["a first failure even if a reason was kept", "HTTP 404", "HTTP 404", 1, "first"],
      ["the same reason, 2nd in a row", "HTTP 404", "HTTP 404", 2, "still"],
      ["the same reason, 3rd", "HTTP 404", "HTTP 404", 3, "quiet"],
      ["the same reason, 4th", "HTTP 404", "HTTP 404", 4, "still"],
      ["the same reason, 5th to 7th", "HTTP 404", "HTTP 404", 6, "quiet"],
      ["the same reason, 8th", "HTTP 404", "HTTP 404", 8, "still"],
      ["the same reason, 100th", "HTTP 404", "HTTP 404", 100, "quiet"],
      ["the same reason, 128th (every 64th past 64)", "HTTP 404", "HTTP 404", 128, "still"],
      ["another reason", "HTTP 404", "connection refused", 3, "changed"],
      ["back to the first reason", "connection refused", "HTTP 404", 5, "changed"]
    ] as const
  )("%s", (_name, told, reason, inARow, expected) => {
    assert.strictEqual(tellFailure(told, reason, inARow), expected)
  })

  it("a day of the same failure at the 5-minute cap is ten lines, not one a poll", () => {
    let told: string | undefined
    let lines = 0
    for (let n = 1; n <= 12 * 24; n++) {
      if (tellFailure(told, "HTTP 404", n) !== "quiet") {
        lines++
        told = "HTTP 404"
      }
    }
    // 1, 2, 4, 8, 16, 32, 64, 128, 192, 256 of 288 failures (a day at the cap).
    assert.strictEqual(lines, 10)
  })
})
