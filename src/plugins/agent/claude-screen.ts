/**
 * Reading Claude Code's screen: the fallback when its hooks say nothing, and how orch knows the TUI takes input.
 * The patterns were taken from the real CLI (2.1.328; screens in test/fixtures/agents/), where the prompt glyph
 * is `❯`, a busy turn shows "esc to interrupt" in the footer, and every question to a person (permission,
 * trust, API key, auto mode's blocked check) is a menu ending in "Esc to cancel". The input box keeps showing
 * `❯` while the agent works, so "busy" is judged by the footer, never by the prompt alone.
 */
import { durationOfText, limitKindOf, limitLineOf } from "../../domain/rate-limit.ts"
import type { Activity } from "../../domain/session.ts"
import type { ScreenLimit } from "./Agent.ts"

/** The Claude Code version whose screens and hooks were recorded and proven end to end (docs/agents.md). */
export const VERIFIED_CLAUDE_VERSION = "2.1.328"

/** The agent asks a person something: a menu with a selected option, or a known question. */
const QUESTION =
  /Do you want to proceed\?|Do you want to (make this edit|create|use this API key)|Esc to cancel|Yes, I trust this folder|Auto mode can't check actions/i
const BUSY = /esc to interrupt/i
/**
 * Claude Code waiting to retry a request: `✻ <what> · retrying in 35s · attempt 1/10` (`retrying…` once the wait is
 * over; the reset time of a usage limit after the wait, `retrying in 4s (4:12pm)`). `<what>` is "API error" on the
 * first two attempts, then what the provider said ("429 This request would exceed…", "529 …", "500 …").
 */
const RETRY_LINE = /^[^\S\n]*(?:[^\s\w][^\S\n]+)?(.+?) · (?:retrying in ((?:\d+[dhms] ?)+?)(?: \([^)\n]*\))?|retrying…) · attempt \d+\/\d+[^\S\n]*$/m
/** Claude Code waiting on a request that got no answer: "No response from the API after 30s · retrying, …", "Waiting for API response · will retry in 10s". */
const NO_ANSWER = /No response from the API after .* · retrying|Waiting for API response · will retry in/
/**
 * Its own backoff on the first two attempts is at most 1.25 s ("retrying in 2s" at most): an "API error" waiting
 * longer waits what the provider's `retry-after` said, which it sends with a limit or an overload.
 */
const OWN_FIRST_WAITS_MS = 2_000
/** The turn it gave up on: the error above the input box, which hints "Resend your message to try again". */
const LIMIT_GAVE_UP = /(\(429\)|\b529 Overloaded|rate limit|usage limit|limit reached|hit your (\w+ )?limit)[^\n]*\n(.*\n)*.*Resend your message to try again/i
/** The input box: a `❯` (older versions: `>`) at the start of a line, between horizontal rules. */
const PROMPT = /^\s*(│\s*)?[❯>](\s|$)/m
/** The footer of a ready TUI in any permission mode. */
const FOOTER = /\? for shortcuts|bypass permissions on|accept edits on|manual mode on|plan mode on|auto mode on/i

const bottom = (screen: string, lines: number) => screen.trimEnd().split("\n").slice(-lines).join("\n")
/** The last lines that show anything: a short answer leaves the screen's middle blank. */
const lastShown = (screen: string, lines: number) => screen.split("\n").filter((line) => line.trim() !== "").slice(-lines).join("\n")

interface Retry {
  readonly line: string
  readonly what: string
  readonly waitMs?: number
}

const retryShown = (tail: string): Retry | undefined => {
  const match = RETRY_LINE.exec(tail)
  if (match === null) return undefined
  const waitMs = match[2] === undefined ? undefined : durationOfText(match[2])
  return { line: match[0].replace(/^[^\S\n]*(?:[^\s\w][^\S\n]+)?/, "").trim(), what: match[1]!, ...(waitMs !== undefined ? { waitMs } : {}) }
}

/**
 * A retry is waiting on the provider's limit or overload when it names one, or when an unnamed "API error" waits
 * longer than its own backoff would; any other retry (a server error, the network) is `retrying`.
 */
const retryActivity = (retry: Retry): Activity =>
  limitKindOf(retry.what) !== undefined || (/^API error$/i.test(retry.what) && (retry.waitMs ?? 0) > OWN_FIRST_WAITS_MS) ? "rate_limited" : "retrying"

/** What the screen says the agent is doing; undefined when it does not look like Claude Code's TUI. */
export const claudeActivityFromScreen = (screen: string): Activity | undefined => {
  const tail = bottom(screen, 15)
  if (QUESTION.test(tail)) return "waiting_input"
  const retry = retryShown(tail)
  if (retry !== undefined) return retryActivity(retry)
  if (LIMIT_GAVE_UP.test(lastShown(screen, 8))) return "rate_limited"
  if (NO_ANSWER.test(tail)) return "retrying"
  if (BUSY.test(tail)) return "active"
  if (PROMPT.test(tail) && FOOTER.test(tail)) return "ready"
  return undefined
}

/** What a screen read as `rate_limited` shows of the limit: the retry it waits for, or the error of the turn it gave up on. */
export const claudeLimitFromScreen = (screen: string): ScreenLimit | undefined => {
  const retry = retryShown(bottom(screen, 15))
  if (retry !== undefined) {
    const kind = limitKindOf(retry.what)
    return { line: retry.line, retrying: true, ...(kind !== undefined ? { kind } : {}), ...(retry.waitMs !== undefined ? { retryInMs: retry.waitMs } : {}) }
  }
  const line = LIMIT_GAVE_UP.test(lastShown(screen, 8)) ? limitLineOf(lastShown(screen, 8)) : undefined
  if (line === undefined) return undefined
  const kind = limitKindOf(line)
  return { line, retrying: false, ...(kind !== undefined ? { kind } : {}) }
}

/** A one-line reason the agent cannot start its work by itself, when the screen shows one. */
export const claudeStartBlocker = (screen: string): string | undefined => {
  if (/Yes, I trust this folder/i.test(screen)) return "Claude Code asks whether to trust this folder: run `claude` once in the project's directory and accept"
  if (/use this API key\?/i.test(screen)) return "Claude Code asks whether to use the API key from the environment: run `claude` once and answer Yes"
  if (/Auto mode can't check actions/i.test(screen)) {
    return "Claude Code's auto mode cannot check actions through this API endpoint: set agentConfig.permissions to skip, auto-edit or default"
  }
  return undefined
}
