import { assert, describe, it } from "@effect/vitest"
import { MAX_RESTARTS, RESTART_MAX_MS, RESTART_WINDOW_MS, restartDecision } from "../../../actors/rules/restart-policy.ts"

const T = 1_000_000

describe("restart policy: a crashed actor restarts with back-off, or escalates", () => {
  it.each<[string, ReadonlyArray<number>, number, ReturnType<typeof restartDecision>]>([
    ["a first crash: 1 s", [], T, { _tag: "Restart", delayMs: 1000, crashes: [T] }],
    ["a second within the window: 2 s", [T], T + 5000, { _tag: "Restart", delayMs: 2000, crashes: [T, T + 5000] }],
    ["a fifth: 16 s", [T, T + 1, T + 2, T + 3], T + 4, { _tag: "Restart", delayMs: 16_000, crashes: [T, T + 1, T + 2, T + 3, T + 4] }],
    ["one more than MAX_RESTARTS within the window: escalate", [T, T + 1, T + 2, T + 3, T + 4], T + 5, {
      _tag: "Escalate",
      reason: `its actor crashed ${MAX_RESTARTS + 1} times within 60 s`
    }],
    ["crashes older than the window are forgotten", [T, T + 1, T + 2, T + 3, T + 4], T + 4 + RESTART_WINDOW_MS, {
      _tag: "Restart",
      delayMs: 2000,
      crashes: [T + 4, T + 4 + RESTART_WINDOW_MS]
    }],
    ["a crash exactly at the window's edge still counts", [T], T + RESTART_WINDOW_MS, { _tag: "Restart", delayMs: 2000, crashes: [T, T + RESTART_WINDOW_MS] }],
    ["a crash just past it does not", [T], T + RESTART_WINDOW_MS + 1, { _tag: "Restart", delayMs: 1000, crashes: [T + RESTART_WINDOW_MS + 1] }]
  ])("%s", (_, crashes, now, decision) => {
    assert.deepStrictEqual(restartDecision(crashes, now), decision)
  })

  it("the back-off never exceeds RESTART_MAX_MS", () => {
    let crashes: ReadonlyArray<number> = []
    const delays: Array<number> = []
    for (let i = 0; i < MAX_RESTARTS; i++) {
      const decision = restartDecision(crashes, T + i)
      if (decision._tag !== "Restart") return assert.fail(`escalated after ${i} crashes`)
      delays.push(decision.delayMs)
      crashes = decision.crashes
    }
    assert.deepStrictEqual(delays, [1000, 2000, 4000, 8000, 16_000])
    assert.isTrue(delays.every((d) => d <= RESTART_MAX_MS))
  })
})
