/**
 * The activity rule: what a session's agent is doing, from what orch knows about it. Pure: no clock, no IO.
 *
 * 1. The agent's own word, while it holds: hook events while the hooks speak (one within `hookSilenceMs`);
 *    a report (`orch report`) until the screen contradicts it.
 * 2. The screen, read by the agent plugin where it recognises it (a question, its busy marker, its prompt).
 * 3. Quiescence: output within the last `quietMs` is `active`; none for `quietMs` is `ready`.
 *
 * A report is contradicted by output that came more than `quietMs` after it (the output around the report
 * itself, such as a wrapper printing its prompt, is part of it) when the screen then reads otherwise. Silence
 * never contradicts `active`: a long silent step stays active, and stuck once the agent-stuck threshold passes.
 * Time rules (ready → idle, stuck) are lifecycle.ts's, applied to what this returns.
 */
import type { ReportedState } from "../../src/domain/activity.ts"
import type { Told } from "../../src/domain/rate-limit.ts"
import type { Activity, AgentWord, SessionRecord } from "../../src/domain/session.ts"

/** Hooks that said nothing for this long no longer speak for the agent: its screen is read. */
export const HOOK_SILENCE_MS = 60_000
/**
 * Hooks silent this long get the screen looked at for what they cannot tell: an agent retrying a request its
 * provider refused or failed (Claude Code says nothing through its hooks for the minutes it retries).
 */
export const LIMIT_LOOK_AFTER_MS = 3_000

/** Waiting on its provider: turned away (a limit, an overload), or retrying a request that failed otherwise. */
const WAITING: ReadonlyArray<Activity> = ["rate_limited", "retrying"]

export interface ActivityRules {
  /** No output for this long is `ready` (agentConfig.quietMs). */
  readonly quietMs: number
  readonly hookSilenceMs: number
}

/**
 * What the runtime and the agent plugin tell about the screen at a probe; when it reads `rate_limited`, what it shows
 * of the limit (the line, the reset or the retry's wait, the kind, whether the agent still retries).
 */
export interface ScreenFacts extends Told {
  /** The agent plugin's reading of the screen, when it recognises it. */
  readonly screen?: Activity
  /** When the agent's terminal last printed anything (ms); undefined when the runtime cannot tell. */
  readonly lastOutputAt?: number
}

/** Something the agent said about its activity (a line of its activity file); when its provider turned it away, what it showed. */
export interface Word extends Told {
  readonly by: "hook" | "report"
  readonly activity: Activity
  readonly at: number
  readonly report?: ReportedState
  readonly note?: string
}

const iso = (ms: number) => new Date(ms).toISOString()

/** What the screen says: a recognised screen, else quiescence; undefined when neither can tell. */
export const screenReading = (facts: ScreenFacts, now: number, rules: ActivityRules): Activity | undefined => {
  if (facts.screen !== undefined) return facts.screen
  if (facts.lastOutputAt === undefined) return undefined
  return now - facts.lastOutputAt < rules.quietMs ? "active" : "ready"
}

/** Whether the agent's hooks still speak for it (its last word is a recent hook event), so its screen need not be read. */
export const hooksSpeak = (word: Pick<Word, "by" | "at"> | undefined, now: number, hookSilenceMs: number): boolean =>
  word?.by === "hook" && now - word.at < hookSilenceMs

const contradicts = (word: AgentWord, facts: ScreenFacts, reading: Activity | undefined, rules: ActivityRules): boolean => {
  if (reading === undefined || reading === word.activity) return false
  if (facts.lastOutputAt === undefined || facts.lastOutputAt - Date.parse(word.at) <= rules.quietMs) return false
  return !(word.activity === "active" && facts.screen === undefined)
}

/** Output while the session is active by quiescence or by a report is progress: it keeps it from being stuck. */
const progressed = (record: SessionRecord, facts: ScreenFacts, now: number): SessionRecord => {
  if (record.activity !== "active" || facts.lastOutputAt === undefined) return record
  const at = Math.min(facts.lastOutputAt, now)
  return record.activitySince !== undefined && at <= Date.parse(record.activitySince) ? record : { ...record, activitySince: iso(at) }
}

const fromScreen = (record: SessionRecord, facts: ScreenFacts, reading: Activity | undefined, now: number): SessionRecord => {
  if (reading === undefined) return record
  // A screen cannot tell idle from ready (idle is ready that lasted): it must not wake an idle session.
  if (reading === "ready" && record.activity === "idle") return record
  if (reading === "retrying" && record.activity === "rate_limited") return record
  const quiescence = facts.screen === undefined
  if (reading === record.activity) return quiescence ? progressed(record, facts, now) : record
  const since = quiescence && reading === "active" && facts.lastOutputAt !== undefined ? Math.min(facts.lastOutputAt, now) : now
  return { ...record, activity: reading, activitySince: iso(since) }
}

/**
 * A retry of a request the provider turned away stays `rate_limited`: its countdown ends in waits as short as a failed
 * request's, and the attempts after it are of the same request.
 */
const waitingOn = (record: SessionRecord, reading: Activity): Activity =>
  reading === "retrying" && record.activity === "rate_limited" ? "rate_limited" : reading

/**
 * While the hooks speak, the screen decides one thing only: whether the agent waits on its provider (it retries a
 * refused or failed request), and when it no longer shows that, the hooks' word stands again.
 */
const limitOverHooks = (record: SessionRecord, word: AgentWord, facts: ScreenFacts, now: number): SessionRecord => {
  if (facts.screen !== undefined && WAITING.includes(facts.screen)) {
    const activity = waitingOn(record, facts.screen)
    return record.activity === activity ? record : { ...record, activity, activitySince: iso(now) }
  }
  if (WAITING.includes(record.activity) && !WAITING.includes(word.activity) && facts.screen !== undefined) {
    return { ...record, activity: word.activity, activitySince: iso(now) }
  }
  return record
}

/** Folds a probe's screen facts into the record's activity (and marks a report the screen contradicted). */
export const foldScreen = (record: SessionRecord, facts: ScreenFacts, now: number, rules: ActivityRules): SessionRecord => {
  const reading = screenReading(facts, now, rules)
  const word = record.said
  if (word === undefined || word.overruled === true) return fromScreen(record, facts, reading, now)
  if (word.by === "hook") {
    return hooksSpeak({ by: word.by, at: Date.parse(word.at) }, now, rules.hookSilenceMs)
      ? limitOverHooks(record, word, facts, now)
      : fromScreen(record, facts, reading, now)
  }
  if (!contradicts(word, facts, reading, rules)) return progressed(record, facts, now)
  return fromScreen({ ...record, said: { ...word, overruled: true } }, facts, reading, now)
}

/** Folds what the agent said: its activity from then on, and its word, which the screen is weighed against. */
export const foldWord = (record: SessionRecord, word: Word): SessionRecord => {
  const said: AgentWord = {
    by: word.by,
    activity: word.activity,
    at: iso(word.at),
    ...(word.report !== undefined ? { report: word.report } : {}),
    ...(word.note !== undefined ? { note: word.note } : {}),
    ...(word.limit !== undefined ? { limit: word.limit } : {})
  }
  if (record.activity === "exited") return record
  const same = word.activity === record.activity && word.activity !== "active"
  return same ? { ...record, said } : { ...record, said, activity: word.activity, activitySince: iso(word.at) }
}
