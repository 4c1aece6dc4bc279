/** Durations as the config writes them: a whole number and a unit, `500ms`, `30s`, `10m`, `2h`, `1d`. */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

export const parseDuration = (text: string): number | undefined => {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text)
  return match ? Number(match[1]) * UNITS[match[2]!]! : undefined
}
