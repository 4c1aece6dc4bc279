/** The wait before try `n + 1` after `n` failures in a row (n ≥ 1): `baseMs`, doubling each time, at most `maxMs`. */
export const doublingDelay = (baseMs: number, n: number, maxMs = Number.POSITIVE_INFINITY): number =>
  Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(n, 1) - 1, 30))

/**
 * Whether failure `n` of a streak (n ≥ 1) is worth a log line: the 1st, 2nd, 4th, 8th… up to `every`, then every
 * `every`th. A condition that lasts (a host down for an hour) leaves a few lines, not one per cycle.
 */
export const logsFailure = (n: number, every = 64): boolean => n >= 1 && (n <= every ? (n & (n - 1)) === 0 : n % every === 0)
