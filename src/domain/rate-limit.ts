/**
 * An agent its model provider turned away: a rate limit (requests or tokens a minute) or a usage limit (a
 * subscription's 5-hour or weekly allowance). What orch knows of it, when it tells the agent to continue, and
 * which credential is held back. Pure: explicit time, no IO.
 *
 * Claude Code retries a 429 by itself (10 attempts, about 3 minutes), then ends its turn with a `StopFailure`
 * hook (`"error": "rate_limit"`). While it retries, its screen names the limit and, for a usage limit, the
 * reset time on the agent's clock: `✻ 5-hour limit reached · retrying in 4s (4:12pm) · attempt 5/10`.
 */
import * as Schema from "effect/Schema"

/** What the record keeps while the agent is limited, and across the tries to continue that fail again. */
export const RateLimit = Schema.Struct({
  /** When the agent was last found limited (ISO). */
  since: Schema.String,
  /** Times in a row it was found limited; a turn that ends normally clears the record. */
  attempts: Schema.Int,
  /** When the provider said the limit resets (ISO), when it said. */
  resetAt: Schema.optionalKey(Schema.String),
  /** What the agent showed, e.g. "API Error: Request rejected (429) · …". */
  message: Schema.optionalKey(Schema.String),
  /** When orch tells the agent to continue (ISO): see `continueAt`. */
  continueAt: Schema.String,
  /** When orch last told the agent to continue (ISO). */
  continuedAt: Schema.optionalKey(Schema.String)
})
export type RateLimit = typeof RateLimit.Type

const MINUTE = 60_000
/**
 * Tries to continue with no reset time known: 5 minutes after the agent gave up (the `agent-rate-limited`
 * reaction's `threshold`), then doubling, at most hourly.
 */
export const FIRST_RETRY_MS = 5 * MINUTE
export const MAX_RETRY_MS = 60 * MINUTE
/** Agents show the reset to the minute ("4:12pm" for 16:12:40): orch waits for the end of that minute. */
export const RESET_SLACK_MS = 60_000
/** The longest a usage window lasts (a weekly limit); a reset read further away than this is not believed. */
const LONGEST_WINDOW_MS = 7 * 24 * 60 * MINUTE

/** Minutes east of UTC of an IANA time zone ("Europe/Berlin") at `at`; undefined for a zone the runtime does not know. */
export const zoneOffsetMinutes = (zone: string, at: number): number | undefined => {
  try {
    const name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(at).find((part) => part.type === "timeZoneName")
      ?.value
    const match = /GMT(?:([+-])(\d{2}):(\d{2}))?/.exec(name ?? "")
    if (match === null) return undefined
    return match[1] === undefined ? 0 : (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
  } catch {
    return undefined
  }
}

const ZONE = String.raw`(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?`
/** "4:12pm", "4 PM", "11am" (a 12-hour clock), then an optional "(Europe/Berlin)". */
const TWELVE_HOUR = new RegExp(String.raw`(?:resets?(?: at)?|try again at|\()\s*(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b` + ZONE, "i")
/** "16:45", "at 16:30" (a 24-hour clock, minutes required), then an optional zone. */
const TWENTY_FOUR_HOUR = new RegExp(String.raw`(?:resets?(?: at)?|try again at|\()\s*(\d{1,2}):(\d{2})\b(?!\s*[ap]\.?m)` + ZONE, "i")

/**
 * The reset time a limit message names: "resets 4:12pm", "(4:12pm)", "resets 11am", "try again at 4:12 PM",
 * "resets at 16:30", on the clock of the time zone it names ("resets 2:30pm (Europe/Berlin)", "(UTC)"), else on a
 * clock `offsetMinutes` east of UTC. A time of day without a date is taken as its occurrence nearest to `now`
 * (within 12 hours either way): the CLI may show a reset that has just passed (it retries for minutes before it
 * gives up). Undefined when it names none.
 */
export const resetFromText = (text: string, now: number, offsetMinutes: number): number | undefined => {
  const twelve = TWELVE_HOUR.exec(text)
  const match = twelve ?? TWENTY_FOUR_HOUR.exec(text)
  if (match === null) return undefined
  const minute = Number(match[2] ?? "0")
  const hour = twelve !== null ? (Number(match[1]) % 12) + (match[3]!.toLowerCase() === "p" ? 12 : 0) : Number(match[1])
  if ((twelve !== null && (Number(match[1]) < 1 || Number(match[1]) > 12)) || hour > 23 || minute > 59) return undefined
  const zone = twelve !== null ? match[4] : match[3]
  const offset = zone === undefined ? offsetMinutes : zoneOffsetMinutes(zone, now)
  if (offset === undefined) return undefined
  return nearestClockTime(now, hour, minute, offset)
}

const DAY_MS = 24 * 60 * MINUTE

const nearestClockTime = (now: number, hour: number, minute: number, offsetMinutes: number): number => {
  const local = new Date(now + offsetMinutes * MINUTE)
  const today = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour, minute) - offsetMinutes * MINUTE
  return [today - DAY_MS, today, today + DAY_MS].find((candidate) => candidate >= now - DAY_MS / 2 && candidate < now + DAY_MS / 2)!
}

/** When orch tells a limited agent to continue: after the reset when known, else on a backoff from when it gave up. */
export const continueTime = (limit: Omit<RateLimit, "continueAt">, firstRetryMs: number): number => {
  const since = Date.parse(limit.since)
  const reset = limit.resetAt === undefined ? undefined : Date.parse(limit.resetAt)
  // A reset already past when the agent was found limited: the limit has lifted; continue after the slack.
  if (reset !== undefined && reset - since <= LONGEST_WINDOW_MS) return Math.max(reset, since) + RESET_SLACK_MS
  return since + Math.min(Math.max(MAX_RETRY_MS, firstRetryMs), firstRetryMs * 2 ** Math.max(0, limit.attempts - 1))
}

/** Whether it is time to tell the agent to continue (once per time it was found limited). */
export const dueToContinue = (limit: RateLimit, now: number): boolean =>
  now >= Date.parse(limit.continueAt) && (limit.continuedAt === undefined || Date.parse(limit.continuedAt) < Date.parse(limit.since))

/** The record after the agent was found limited (again) at `now`. */
export const limitedAgain = (
  previous: RateLimit | undefined,
  now: number,
  told: { readonly resetAt?: number; readonly limit?: string },
  firstRetryMs: number
): RateLimit => {
  // A reset named before and still to come holds while the agent says nothing newer of it.
  const resetAt = told.resetAt ?? (previous?.resetAt !== undefined && Date.parse(previous.resetAt) > now ? Date.parse(previous.resetAt) : undefined)
  const limit = {
    since: new Date(now).toISOString(),
    attempts: (previous?.attempts ?? 0) + 1,
    ...(resetAt !== undefined ? { resetAt: new Date(resetAt).toISOString() } : {}),
    ...(told.limit !== undefined ? { message: told.limit } : {}),
    ...(previous?.continuedAt !== undefined ? { continuedAt: previous.continuedAt } : {})
  }
  return { ...limit, continueAt: new Date(continueTime(limit, firstRetryMs)).toISOString() }
}

/** The record once the agent says more of the same limit: the newest message and reset time it named win. */
export const learned = (limit: RateLimit, told: { readonly resetAt?: number; readonly limit?: string }, firstRetryMs: number): RateLimit => {
  const resetAt = told.resetAt !== undefined ? new Date(told.resetAt).toISOString() : limit.resetAt
  const message = told.limit ?? limit.message
  if (resetAt === limit.resetAt && message === limit.message) return limit
  const next = { ...limit, ...(resetAt !== undefined ? { resetAt } : {}), ...(message !== undefined ? { message } : {}) }
  return { ...next, continueAt: new Date(continueTime(next, firstRetryMs)).toISOString() }
}

/**
 * Which account an agent's sessions spend: the agent plugin and, when its `agentConfig.env` carries a key or
 * token, a digest of that value (never the value). Sessions with the same credential share one limit.
 */
export const credentialOf = (agent: string, agentConfig: Readonly<Record<string, unknown>>, digest: (text: string) => string): string => {
  const env = agentConfig.env
  if (env === null || typeof env !== "object") return agent
  const secrets = Object.entries(env as Record<string, unknown>)
    .filter(([name, value]) => /KEY|TOKEN|SECRET|AUTH/i.test(name) && typeof value === "string" && value !== "")
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${String(value)}`)
  return secrets.length === 0 ? agent : `${agent} (key ${digest(secrets.join("\n")).slice(0, 8)})`
}

const LIMIT_LINE = /\b429\b|\b529\b|overloaded|rate.limit|usage limit|limit reached|hit your (\w+ )?limit/i

/** The last line of a screen that names a limit, without the agent's glyphs: what to show people. */
export const limitLineOf = (screen: string): string | undefined =>
  screen.split("\n").reverse().find((line) => LIMIT_LINE.test(line))?.replace(/^[\s●⎿✻*·■└•◦]+/u, "").trim()

/** For people: what the agent showed and when orch tells it to continue ("at 16:12", from `timeOf`). */
export const describeLimit = (limit: RateLimit, timeOf: (ms: number) => string): string =>
  `${limit.message ?? "its model provider turned it away"}; orch tells it to continue ${timeOf(Date.parse(limit.continueAt))}${
    limit.resetAt === undefined ? "" : " (the limit resets then)"
  }`

const localDay = (ms: number) => Math.floor((ms - new Date(ms).getTimezoneOffset() * MINUTE) / DAY_MS)

/**
 * A time on this machine's clock, for people, from `now`: "at 16:12 UTC", "tomorrow at 09:00 CET", "on Nov 29 at 09:00 UTC".
 * The formatter is made on the first time shown, not when the module loads: a process's first `Intl` object costs
 * 10–30 ms (ICU data), which every command that loads this module (or only asks for a `clockTime`) would pay.
 */
export const clockTime = (now: number) => {
  let timeOfDay: Intl.DateTimeFormat | undefined
  return (ms: number): string =>
    clockTimeWith(timeOfDay ??= new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZoneName: "short" }), now, ms)
}

const clockTimeWith = (timeOfDay: Intl.DateTimeFormat, now: number, ms: number): string => {
  const time = timeOfDay.format(ms)
  const days = localDay(ms) - localDay(now)
  if (days === 0) return `at ${time}`
  if (days === 1) return `tomorrow at ${time}`
  return `on ${new Date(ms).toLocaleDateString("en-US", { month: "short", day: "numeric" })} at ${time}`
}
