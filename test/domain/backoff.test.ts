import { describe, expect, it } from "@effect/vitest"
import { doublingDelay } from "../../src/domain/backoff.ts"

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
