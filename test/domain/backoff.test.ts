import { describe, expect, it } from "@effect/vitest"
import { doublingDelay, logsFailure } from "../../src/domain/backoff.ts"

describe("doublingDelay", () => {
  it.each(
    [
      [1000, 1, undefined, 1000],
      [1000, 2, undefined, 2000],
      [1000, 5, undefined, 16_000],
      [1000, 6, 30_000, 30_000],
      [500, 0, 10_000, 500],
      [1000, 1000, undefined, 1000 * 2 ** 30]
    ] as const
  )("base %d, %d failures, at most %s → %d ms", (base, n, max, expected) => {
    expect(doublingDelay(base, n, max)).toBe(expected)
  })
})

describe("logsFailure", () => {
  it("logs the 1st, 2nd, 4th… failure of a streak, then every 64th", () => {
    const logged = Array.from({ length: 300 }, (_, i) => i + 1).filter((n) => logsFailure(n))
    expect(logged).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 192, 256])
    expect(logsFailure(0)).toBe(false)
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].filter((n) => logsFailure(n, 4))).toEqual([1, 2, 4, 8, 12])
  })
})
