/**
 * Reading Claude Code's screen: the fallback when its hooks say nothing, and how orch knows the TUI takes input.
 * The patterns were taken from the real CLI (2.1.328; screens in test/fixtures/agents/), where the prompt glyph
 * is `❯`, a busy turn shows "esc to interrupt" in the footer, and every question to a person (permission,
 * trust, API key, auto mode's blocked check) is a menu ending in "Esc to cancel". The input box keeps showing
 * `❯` while the agent works, so "busy" is judged by the footer, never by the prompt alone.
 */
import type { Activity } from "../../domain/session.ts"

/** The Claude Code version whose screens and hooks were recorded and proven end to end (docs/agents.md). */
export const VERIFIED_CLAUDE_VERSION = "2.1.328"

/** The agent asks a person something: a menu with a selected option, or a known question. */
const QUESTION =
  /Do you want to proceed\?|Do you want to (make this edit|create|use this API key)|Esc to cancel|Yes, I trust this folder|Auto mode can't check actions/i
const BUSY = /esc to interrupt/i
/** Claude Code retrying a request its provider refused for a limit: `✻ 429 … · retrying in 5s · attempt 5/10`. */
const LIMIT_RETRYING = /(\b429\b|\b529\b|overloaded|rate limit|usage limit|limit reached).*retrying in/i
/** The turn it gave up on: the error above the input box, which hints "Resend your message to try again". */
const LIMIT_GAVE_UP = /(\(429\)|\b529 Overloaded|rate limit|usage limit|limit reached|hit your (\w+ )?limit)[^\n]*\n(.*\n)*.*Resend your message to try again/i
/** The input box: a `❯` (older versions: `>`) at the start of a line, between horizontal rules. */
const PROMPT = /^\s*(│\s*)?[❯>](\s|$)/m
/** The footer of a ready TUI in any permission mode. */
const FOOTER = /\? for shortcuts|bypass permissions on|accept edits on|manual mode on|plan mode on|auto mode on/i

const bottom = (screen: string, lines: number) => screen.trimEnd().split("\n").slice(-lines).join("\n")
/** The last lines that show anything: a short answer leaves the screen's middle blank. */
const lastShown = (screen: string, lines: number) => screen.split("\n").filter((line) => line.trim() !== "").slice(-lines).join("\n")

/** What the screen says the agent is doing; undefined when it does not look like Claude Code's TUI. */
export const claudeActivityFromScreen = (screen: string): Activity | undefined => {
  const tail = bottom(screen, 15)
  if (QUESTION.test(tail)) return "waiting_input"
  if (LIMIT_RETRYING.test(tail) || LIMIT_GAVE_UP.test(lastShown(screen, 8))) return "rate_limited"
  if (BUSY.test(tail)) return "active"
  if (PROMPT.test(tail) && FOOTER.test(tail)) return "ready"
  return undefined
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
