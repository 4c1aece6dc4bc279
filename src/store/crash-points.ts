/**
 * Crash points, for the crash-point explorer (test/crash/, docs/crash-explorer.md); off, and a boolean test, unless
 * the test-only `ORCH_CRASH_AT` or `ORCH_CRASH_TRACE` is set. Every durable step calls `crashPoint` right before and
 * right after itself. With `ORCH_CRASH_AT=<role>:<n>:<signal>` (`supervisor:12:SIGKILL`, `cli:queue:3:SIGTERM`), a
 * process whose role starts with `<role>` sends itself `<signal>` at the n-th crash point it passes: SIGKILL dies
 * there; SIGTERM and SIGINT are handled as a user's would be, after the step goes on. With `ORCH_CRASH_TRACE=<file>`
 * every crash point appends one JSON line to that file, in one write: `{role, pid, n, label}` (and `signal` where it
 * signalled).
 */
import * as Effect from "effect/Effect"
import { appendFileSync } from "node:fs"

export interface CrashAt {
  readonly role: string
  readonly n: number
  readonly signal: NodeJS.Signals
}

const SIGNALS: ReadonlyArray<string> = ["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"]
/** Commands whose first word only groups others: their role names the second word too (`cli:queue add`). */
const COMMAND_GROUPS: ReadonlyArray<string> = ["config", "queue", "session"]

/**
 * The role of a process run as `orch <argv…>`: `supervisor` for the one that runs the supervisor (`orch start <project>`
 * without `--detach`, which is also the detached child of `orch start --detach`), else `cli:` and its command words.
 */
export const crashRole = (argv: ReadonlyArray<string>): string => {
  const words = argv.filter((arg) => !arg.startsWith("-"))
  const [first = "", second] = words
  if (first === "start" && !argv.includes("--detach")) return "supervisor"
  return `cli:${first}${COMMAND_GROUPS.includes(first) && second !== undefined ? ` ${second}` : ""}`
}

/** `<role>:<n>:<signal>` (the role may hold colons), or undefined for anything else. */
export const parseCrashAt = (spec: string | undefined): CrashAt | undefined => {
  const parts = (spec ?? "").split(":")
  const signal = parts.pop()
  const n = Number(parts.pop())
  const role = parts.join(":")
  if (role === "" || !Number.isInteger(n) || n < 1 || signal === undefined || !SIGNALS.includes(signal)) return undefined
  return { role, n, signal: signal as NodeJS.Signals }
}

const crashAt = parseCrashAt(process.env.ORCH_CRASH_AT)
const traceFile = process.env.ORCH_CRASH_TRACE || undefined
const enabled = crashAt !== undefined || traceFile !== undefined
const role = enabled ? crashRole(process.argv.slice(2)) : ""
const armed = crashAt !== undefined && role.startsWith(crashAt.role)
// The one piece of module-level mutable state in orch: how many crash points this process has passed. It belongs to
// the process, not to any scope (a count that a layer rebuilt would reset could never name "the n-th point").
let passed = 0

/** A durable step is about to happen, or just happened: trace it, and crash here when this is the point asked for. */
export const crashPoint = (label: string): void => {
  if (!enabled) return
  const n = ++passed
  const signal = armed && n === crashAt!.n ? crashAt!.signal : undefined
  if (traceFile !== undefined) {
    appendFileSync(traceFile, `${JSON.stringify({ role, pid: process.pid, n, label, ...(signal !== undefined ? { signal } : {}) })}\n`)
  }
  if (signal !== undefined) process.kill(process.pid, signal)
}

/** `crashPoint` as an Effect, for steps written as Effects. */
export const atCrashPoint = (label: string): Effect.Effect<void> => Effect.sync(() => crashPoint(label))
