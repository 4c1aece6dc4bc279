/**
 * Activity signals: the JSON lines agents append to a session's `activity.jsonl` (Claude Code through the hooks
 * orch installs; any agent may write them to $ORCH_ACTIVITY_FILE): `{"ts": ISO time, "event": name, "payload": …}`.
 * Event names are Claude Code's hook events; `{"activity": "<value>"}` sets an activity directly.
 * What each event means was checked against the real Claude Code (docs/agents.md): a permission dialog fires
 * PermissionRequest at once and a `permission_prompt` Notification seconds later; an `idle_prompt` Notification
 * only says the agent still waits at its prompt, which is not a question to a person.
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

const QUESTIONS: ReadonlyArray<string> = ["permission_prompt", "elicitation_dialog"]

/** Whether a Notification hook's payload is the agent asking a person something (older agents send no type). */
const asksPerson = (payload: unknown): boolean => {
  const { notification_type: type, message } = (payload ?? {}) as { notification_type?: unknown; message?: unknown }
  if (typeof type === "string") return QUESTIONS.includes(type)
  return typeof message === "string" && /permission|approv/i.test(message)
}

/** What a signal says the agent is doing; undefined when it says nothing about that. */
export const activityOf = (signal: ActivitySignal): Activity | undefined => {
  if (signal.activity !== undefined && ACTIVITIES.includes(signal.activity)) return signal.activity
  switch (signal.event) {
    case "UserPromptSubmit":
    case "PreToolUse":
    case "PostToolUse":
      return "active"
    case "PermissionRequest":
      return "waiting_input"
    case "Notification":
      return asksPerson(signal.payload) ? "waiting_input" : undefined
    case "SessionStart":
    case "Stop":
      return "ready"
    default:
      return undefined
  }
}
