/** The wait before try `n + 1` after `n` failures in a row (n ≥ 1): `baseMs`, doubling each time, at most `maxMs`. */
export const doublingDelay = (baseMs: number, n: number, maxMs = Number.POSITIVE_INFINITY): number =>
  Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(n, 1) - 1, 30))
