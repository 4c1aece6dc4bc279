import { describe, expect, it } from "@effect/vitest"
import { nextPollDelay } from "../../../actors/rules/poll-pace.ts"

const NOW = 1_000_000_000_000
const budget = (remaining: number, extra: object = {}) => ({ limit: 5000, remaining, reset: NOW / 1000 + 1800, ...extra })

describe("repohost poll pace", () => {
  it.each(
    [
      ["no budget known yet", [], 30_000],
      ["a healthy budget", [budget(4000)], 30_000],
      ["half spent", [budget(2500)], 30_000],
      ["a quarter left: twice as slow", [budget(1250)], 60_000],
      ["a tenth left: five times as slow", [budget(500)], 150_000],
      ["nearly spent: wait for the reset", [budget(100)], 1_800_000],
      ["the slowest project sets the pace", [budget(4000), budget(1250)], 60_000],
      ["asked to back off (Retry-After)", [budget(4000, { blockedUntil: NOW + 120_000 })], 120_000],
      ["a back-off already over", [budget(4000, { blockedUntil: NOW - 1 })], 30_000]
    ] as const
  )("%s", (_name, budgets, delay) => {
    expect(nextPollDelay(30_000, budgets, NOW)).toBe(delay)
  })
})
