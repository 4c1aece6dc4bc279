/**
 * Where log lines go. Code below the CLI (plugins, effect's own rpc and http modules) may log; Effect's default
 * logger would print `[12:00:00.000] WARN (#6): …` into a command's output. Instead:
 * - a command prints warnings and errors as its other messages read (`orch: warning: …`, one line each), and
 *   nothing below a warning;
 * - the supervisor appends every line, timestamped, to `supervisor.log` in the data directory, whether it runs
 *   in the foreground or detached.
 */
import * as Cause from "effect/Cause"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { appendFileSync, mkdirSync } from "node:fs"
import { storePaths } from "../store/paths.ts"

const text = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value instanceof Error) return value.message
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** A log entry's words on one line: its messages, then what its cause says (no stack). */
export const logLine = (message: unknown, cause: Cause.Cause<unknown>): string => {
  const words = (Array.isArray(message) ? message : [message]).map(text).filter((w) => w !== "").join(" ")
  const reason = cause.reasons.length === 0 ? "" : text(Cause.squash(cause))
  return [words, reason].filter((w) => w !== "").join(": ").replace(/\s*\n\s*/g, " ")
}

/** Warnings and errors as `orch: warning: …` / `orch: …` on stderr; less than a warning is not shown. */
export const commandLogger = Logger.make(({ logLevel, message, cause }) => {
  if (LogLevel.isLessThan(logLevel, "Warn")) return
  process.stderr.write(`orch: ${logLevel === "Warn" ? "warning: " : ""}${logLine(message, cause)}\n`)
})

export const commandLoggerLayer = Logger.layer([commandLogger])

export const supervisorLogPath = (root: string) => storePaths(root).supervisorLog

/**
 * Every line, with its time and level, appended to `supervisor.log`. A failure that was expected (a typed error: a
 * host that said no, a file that could not be read) is told in the line itself; only a defect (a bug) brings its
 * full cause, stack and all, for whoever debugs.
 */
export const supervisorLogger = (root: string) =>
  Logger.make(({ logLevel, message, cause, date }) => {
    const defect = cause.reasons.some(Cause.isDieReason)
    const line = `${date.toISOString()} ${logLevel.toUpperCase()} ${logLine(message, defect ? Cause.empty : cause)}${
      defect ? `\n${Cause.pretty(cause)}` : ""
    }\n`
    try {
      mkdirSync(root, { recursive: true })
      appendFileSync(supervisorLogPath(root), line)
    } catch (error) {
      // The log cannot be written: the line goes where a detached supervisor's output goes anyway.
      process.stderr.write(`orch: cannot write ${supervisorLogPath(root)} (${(error as NodeJS.ErrnoException).code ?? String(error)}); ${line}`)
    }
  })

export const supervisorLoggerLayer = (root: string) => Logger.layer([supervisorLogger(root)])
