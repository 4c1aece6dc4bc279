/**
 * Activity signals: the JSON lines a session's `activity.jsonl` holds, one per thing the agent said about its
 * activity. Two kinds, both decoded by `SignalLine`:
 * - hook events, `{"ts": ISO time, "event": name, "payload": …}`: Claude Code's hooks (installed by orch) write
 *   them; event names are Claude Code's. What each means was checked against the real Claude Code
 *   (docs/agents.md): a permission dialog fires PermissionRequest at once and a `permission_prompt` Notification
 *   seconds later; an `idle_prompt` Notification only says the agent still waits at its prompt.
 * - reports, `{"ts": ISO time, "report": state, "note"?: text}`: `orch report` writes them (any agent or wrapper
 *   may). The older form `{"activity": "<value>"}` is read as a report too.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Activity } from "./session.ts"

/**
 * What `orch report` can state. `done` is `ready` plus a `session.reported_done` event: the agent says its task is
 * finished. `rate_limited`: its model provider turned it away (the note says how, and may name the reset time).
 */
export const ReportedState = Schema.Literals(["active", "ready", "waiting_input", "rate_limited", "done"])
export type ReportedState = typeof ReportedState.Type
export const REPORTED_STATES: ReadonlyArray<ReportedState> = ReportedState.literals

/** Activities an agent may set directly with the older `{"activity": …}` line. */
const SettableActivity = Schema.Literals(["active", "ready", "idle", "blocked", "waiting_input", "rate_limited", "exited"])

export const SignalLine = Schema.Struct({
  ts: Schema.optionalKey(Schema.String),
  event: Schema.optionalKey(Schema.String),
  payload: Schema.optionalKey(Schema.Unknown),
  report: Schema.optionalKey(ReportedState),
  note: Schema.optionalKey(Schema.String),
  activity: Schema.optionalKey(SettableActivity)
})
export type ActivitySignal = typeof SignalLine.Type

const decodeLine = Schema.decodeUnknownOption(Schema.fromJsonString(SignalLine))

/** One line of the file, decoded; undefined for anything that is not a signal (garbage, a partial line, wrong types). */
export const parseSignal = (line: string): ActivitySignal | undefined => Option.getOrUndefined(decodeLine(line))

/** The line `orch report` appends. */
export const reportLine = (state: ReportedState, at: number, note?: string): string =>
  JSON.stringify(Schema.encodeSync(SignalLine)({ ts: new Date(at).toISOString(), report: state, ...(note !== undefined ? { note } : {}) }))

/** Who said it: the agent's hooks, or the agent (or its wrapper) stating its activity itself. */
export const sourceOf = (signal: ActivitySignal): "hook" | "report" => signal.report !== undefined || signal.activity !== undefined ? "report" : "hook"

const QUESTIONS: ReadonlyArray<string> = ["permission_prompt", "elicitation_dialog"]

/** Whether a Notification hook's payload is the agent asking a person something (older agents send no type). */
const asksPerson = (payload: unknown): boolean => {
  if (payload === null || typeof payload !== "object") return false
  const { notification_type: type, message } = payload as { readonly notification_type?: unknown; readonly message?: unknown }
  if (typeof type === "string") return QUESTIONS.includes(type)
  return typeof message === "string" && /permission|approv/i.test(message)
}

const field = (payload: unknown, key: string): string | undefined => {
  if (payload === null || typeof payload !== "object") return undefined
  const value = (payload as Record<string, unknown>)[key]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * A turn that ended in a provider's error (Claude Code's `StopFailure`): a rate or usage limit, or the provider
 * overloaded (a 529, reported as a `server_error`), both of which pass with time; a credential or billing problem,
 * which needs a person; anything else (another server error, the output limit) leaves the agent at its prompt.
 */
const failedTurn = (payload: unknown): Activity => {
  const error = field(payload, "error")
  if (error === "rate_limit") return "rate_limited"
  if (error === "server_error" && /\b529\b|overloaded/i.test(field(payload, "last_assistant_message") ?? "")) return "rate_limited"
  if (error === "authentication_failed" || error === "billing_error") return "blocked"
  return "ready"
}

/** What the agent showed when its provider turned it away, for a signal that says so. */
export const limitOf = (signal: ActivitySignal): string | undefined => {
  if (signal.report === "rate_limited") return signal.note ?? "the agent reported a rate limit"
  if (signal.event !== "StopFailure" || failedTurn(signal.payload) !== "rate_limited") return undefined
  return field(signal.payload, "last_assistant_message") ?? field(signal.payload, "error_details") ?? "the model provider's rate limit"
}

/** What a signal says the agent is doing; undefined when it says nothing about that. */
export const activityOf = (signal: ActivitySignal): Activity | undefined => {
  if (signal.report !== undefined) return signal.report === "done" ? "ready" : signal.report
  if (signal.activity !== undefined) return signal.activity
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
    case "StopFailure":
      return failedTurn(signal.payload)
    default:
      return undefined
  }
}
