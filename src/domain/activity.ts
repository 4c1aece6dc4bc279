/**
 * Activity signals: the JSON lines agents append to a session's `activity.jsonl` (Claude Code through the hooks
 * orch installs; any agent may write them to $ORCH_ACTIVITY_FILE): `{"ts": ISO time, "event": name, "payload": …}`.
 * Event names are Claude Code's hook events; `{"activity": "<value>"}` sets an activity directly.
 */
import type { Activity } from "./session.ts"

export interface ActivitySignal {
  readonly ts?: string
  readonly event?: string
  readonly activity?: Activity
  readonly payload?: unknown
}

const ACTIVITIES: ReadonlyArray<string> = ["active", "ready", "idle", "blocked", "waiting_input", "exited"]

export const parseSignal = (line: string): ActivitySignal | undefined => {
  try {
    const value = JSON.parse(line) as unknown
    return value !== null && typeof value === "object" ? (value as ActivitySignal) : undefined
  } catch {
    return undefined
  }
}

/** What a signal says the agent is doing; undefined when it says nothing about that. */
export const activityOf = (signal: ActivitySignal): Activity | undefined => {
  if (signal.activity !== undefined && ACTIVITIES.includes(signal.activity)) return signal.activity
  switch (signal.event) {
    case "UserPromptSubmit":
    case "PreToolUse":
    case "PostToolUse":
      return "active"
    case "Notification":
      return "waiting_input"
    case "SessionStart":
    case "Stop":
      return "ready"
    default:
      return undefined
  }
}
