/**
 * An agent its model provider turned away: a rate limit (requests or tokens a minute), a usage limit (a
 * subscription's 5-hour or weekly allowance), or the provider overloaded (a 529). What orch knows of it, when it
 * tells the agent to continue, and which credential is held back. Pure: explicit time, no IO.
 *
 * Claude Code retries a refused request by itself (10 attempts), waiting what the provider's `retry-after` says
 * (up to a minute; a longer one makes it give up at once) or its own backoff (about 3 minutes in all), and shows
 * `✻ API error · retrying in 35s · attempt 1/10`, from the third attempt with what the provider said
 * (`✻ 429 This request would exceed… · retrying in 7s · attempt 5/10`), for a usage limit with the reset time on the
 * agent's clock (`✻ 5-hour limit reached · retrying in 4s (4:12pm) · attempt 5/10`). Then it ends its turn with a
 * `StopFailure` hook (`"error": "rate_limit"`, or `"server_error"` for a 529). docs/agents.md has the recordings.
 */
import * as Schema from "effect/Schema"

/**
 * How the provider turned the agent away: a rate or usage limit, or the provider overloaded. Absent in a record: not
 * named yet (Claude Code's first two attempts say only "API error"); it is waited on like a limit.
 */
export const LimitKind = Schema.Literals(["rate_limit", "overloaded"])
export type LimitKind = typeof LimitKind.Type

/** What the record keeps while the agent is limited, and across the tries to continue that fail again. */
export const RateLimit = Schema.Struct({
  /** When the agent was last found limited (ISO). */
  since: Schema.String,
  /** Times in a row it was found limited; a turn that ends normally clears the record. */
  attempts: Schema.Int,
  kind: Schema.optionalKey(LimitKind),
  /** When the provider said the limit resets (ISO), when it said: a reset time shown, or when a retry it waits for is due. */
  resetAt: Schema.optionalKey(Schema.String),
  /** What the agent showed, e.g. "API Error: Request rejected (429) · …". */
  message: Schema.optionalKey(Schema.String),
  /** The agent retries the request by itself (its screen counts the attempts): orch does not tell it to continue meanwhile. */
  retrying: Schema.optionalKey(Schema.Boolean),
  /** When it gave up (its turn ended on the limit, ISO): the wait before orch tells it to continue counts from then. */
  gaveUpAt: Schema.optionalKey(Schema.String),
  /** When orch tells the agent to continue (ISO): see `continueTime`. */
  continueAt: Schema.String,
  /** When orch last told the agent to continue (ISO). */
  continuedAt: Schema.optionalKey(Schema.String)
})
export type RateLimit = typeof RateLimit.Type

/** What an agent's word or screen says of its provider turning it away. */
export interface Told {
  /** What it showed. */
  readonly limit?: string
  /** When the limit resets, or the retry it waits for is due (ms). */
  readonly resetAt?: number
  readonly kind?: LimitKind
  /**
   * true: it retries by itself (its screen counts attempts); false: it gave up, its turn ended on the limit (a hook,
   * a report, the error above its input box); absent: the observation does not say.
   */
  readonly retrying?: boolean
}

const MINUTE = 60_000
/**
 * Tries to continue with no reset time known: 5 minutes after the agent gave up (the `agent-rate-limited`
 * reaction's `threshold`), then doubling, at most hourly.
 */
export const FIRST_RETRY_MS = 5 * MINUTE
export const MAX_RETRY_MS = 60 * MINUTE
/** An overload passes in seconds to minutes: orch tells the agent to continue a minute after it gave up, then 2, 4, 8 … minutes. */
export const OVERLOAD_FIRST_RETRY_MS = MINUTE
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

const backoff = (firstMs: number, attempts: number) => Math.min(Math.max(MAX_RETRY_MS, firstMs), firstMs * 2 ** Math.max(0, attempts - 1))

/**
 * When orch tells a limited agent to continue, counted from when it gave up (from when it was found limited while it
 * still retries): an overload a minute later, doubling each time it is turned away again; a limit at the end of its
 * reset's minute when one is known, else `firstRetryMs` later, doubling; each at most hourly.
 */
export const continueTime = (limit: Omit<RateLimit, "continueAt">, firstRetryMs: number): number => {
  const from = Date.parse(limit.gaveUpAt ?? limit.since)
  const reset = limit.resetAt === undefined ? undefined : Date.parse(limit.resetAt)
  const believed = reset !== undefined && reset - from <= LONGEST_WINDOW_MS ? reset : undefined
  if (limit.kind === "overloaded") {
    return Math.max(from + backoff(OVERLOAD_FIRST_RETRY_MS, limit.attempts), believed === undefined ? 0 : believed + RESET_SLACK_MS)
  }
  // A reset already past when the agent gave up: the limit has lifted; continue after the slack.
  if (believed !== undefined) return Math.max(believed, from) + RESET_SLACK_MS
  return from + backoff(firstRetryMs, limit.attempts)
}

/** Whether it is time to tell the agent to continue (once per time it gave up; never while it retries by itself). */
export const dueToContinue = (limit: RateLimit, now: number): boolean =>
  limit.retrying !== true && now >= Date.parse(limit.continueAt) &&
  (limit.continuedAt === undefined || Date.parse(limit.continuedAt) < Date.parse(limit.gaveUpAt ?? limit.since))

const withContinue = (limit: Omit<RateLimit, "continueAt">, firstRetryMs: number): RateLimit => ({
  ...limit,
  continueAt: new Date(continueTime(limit, firstRetryMs)).toISOString()
})

/** The record after the agent was found limited (again) at `now`. */
export const limitedAgain = (previous: RateLimit | undefined, now: number, told: Told, firstRetryMs: number): RateLimit => {
  // A reset named before and still to come holds while the agent says nothing newer of it.
  const resetAt = told.resetAt ?? (previous?.resetAt !== undefined && Date.parse(previous.resetAt) > now ? Date.parse(previous.resetAt) : undefined)
  const kind = told.kind ?? previous?.kind
  return withContinue({
    since: new Date(now).toISOString(),
    attempts: (previous?.attempts ?? 0) + 1,
    ...(kind !== undefined ? { kind } : {}),
    ...(resetAt !== undefined ? { resetAt: new Date(resetAt).toISOString() } : {}),
    ...(told.limit !== undefined ? { message: told.limit } : {}),
    // Found limited without a word on retries (a hook, a report): its turn ended on it.
    ...(told.retrying === true ? { retrying: true } : { gaveUpAt: new Date(now).toISOString() }),
    ...(previous?.continuedAt !== undefined ? { continuedAt: previous.continuedAt } : {})
  }, firstRetryMs)
}

/** A countdown read to the second moves by a second between two reads: a reset that moved less is the same reset. */
const SAME_RESET_MS = 2_000

/**
 * The record once the agent says more of the same limit: the newest message, kind and reset time it named win; a
 * retrying agent that now gave up starts the wait before orch continues it.
 */
export const learned = (limit: RateLimit, told: Told, now: number, firstRetryMs: number): RateLimit => {
  const moved = told.resetAt !== undefined && (limit.resetAt === undefined || Math.abs(told.resetAt - Date.parse(limit.resetAt)) >= SAME_RESET_MS)
  const resetAt = moved ? new Date(told.resetAt!).toISOString() : limit.resetAt
  const message = told.limit ?? limit.message
  const kind = told.kind ?? limit.kind
  const nowGaveUp = limit.retrying === true && told.retrying === false
  if (resetAt === limit.resetAt && message === limit.message && kind === limit.kind && !nowGaveUp) return limit
  const { continueAt: _, retrying: __, ...rest } = limit
  return withContinue({
    ...rest,
    ...(kind !== undefined ? { kind } : {}),
    ...(resetAt !== undefined ? { resetAt } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(nowGaveUp ? { gaveUpAt: new Date(now).toISOString() } : limit.retrying === true ? { retrying: true } : {})
  }, firstRetryMs)
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

const LIMIT_LINE = /\b429\b|\b529\b|overloaded|rate.limit|usage limit|limit reached|hit your (\w+ )?limit|retrying in|reconnecting \d+\/\d+/i

/** The last line of a screen that names a limit, without the agent's glyphs: what to show people. */
export const limitLineOf = (screen: string): string | undefined =>
  screen.split("\n").reverse().find((line) => LIMIT_LINE.test(line))?.replace(/^[\s●⎿✻✢✳✶✽*·■└•◦]+/u, "").trim()

const OVERLOADED = /\b529\b|overloaded|high demand|at capacity/i
const RATE_LIMITED = /\b429\b|rate.?limit|usage limit|limit reached|hit your (\w+ )?limit|too many requests|quota/i

/** Which way a message says the provider turned the agent away; undefined when it names neither ("API error"). */
export const limitKindOf = (text: string): LimitKind | undefined => OVERLOADED.test(text) ? "overloaded" : RATE_LIMITED.test(text) ? "rate_limit" : undefined

const UNITS: Readonly<Record<string, number>> = { d: 24 * 60 * MINUTE, h: 60 * MINUTE, m: MINUTE, s: 1000 }

/**
 * A wait as agents show it, in ms: "35s", "1m 5s", "2h", "1d 3h 4m" (Claude Code shows only the largest unit from 5
 * minutes on, so "1h" is at least an hour). Undefined for anything else.
 */
export const durationOfText = (text: string): number | undefined => {
  const parts = text.trim().split(/\s+/)
  let ms = 0
  for (const part of parts) {
    const match = /^(\d+)([dhms])$/.exec(part)
    if (match === null) return undefined
    ms += Number(match[1]) * UNITS[match[2]!]!
  }
  return parts.length > 0 ? ms : undefined
}

/** For people: what the agent showed, and what happens next ("orch tells it to continue at 16:12", from `timeOf`). */
export const describeLimit = (limit: RateLimit, timeOf: (ms: number) => string): string =>
  `${limit.message ?? "its model provider turned it away"}; ${nextStep(limit, timeOf)}`

/** What happens next with a limited agent: it retries by itself, or orch tells it to continue then. */
export const nextStep = (limit: RateLimit, timeOf: (ms: number) => string): string => {
  const overload = limit.kind === "overloaded"
  if (limit.retrying === true) {
    const until = limit.resetAt === undefined ? "" : `, next ${timeOf(Date.parse(limit.resetAt))}`
    const after = overload
      ? "orch tells it to continue a minute after it gives up (then 2, 4, 8 … minutes while the provider stays overloaded)"
      : limit.kind === "rate_limit"
      ? "orch tells it to continue once the limit resets after it gives up"
      // Not named yet ("API error"): either may follow.
      : "should it give up, orch tells it to continue once the limit resets (an overload: a minute later, then 2, 4, 8 … minutes)"
    return `it retries by itself${until}; ${after}`
  }
  const when = timeOf(Date.parse(limit.continueAt))
  if (overload) {
    return `the provider is overloaded; orch tells it to continue ${when} (a minute after it gave up, then 2, 4, 8 … minutes while it stays overloaded)`
  }
  return `orch tells it to continue ${when}${limit.resetAt === undefined ? "" : " (the limit resets then)"}`
}

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
