/**
 * A config that could not be applied, told in one line: what is wrong, and where (`file:line:col`) when the
 * loader knows. Every problem of the file, one line each, goes with it for the event's details. Pure.
 */
import type { ConfigError } from "./errors.ts"

export interface ConfigProblem {
  /** The first problem, as one sentence, with "(and N more)" when there are more. */
  readonly problem: string
  /** `file:line:col` of the first problem, when known. */
  readonly location?: string
  /** Every problem, one line each. */
  readonly problems: ReadonlyArray<string>
}

/** What any other failure (a plugin that cannot be made, a settings check) says: its message, line by line. */
interface Failure {
  readonly _tag: string
  readonly message: string
}

const more = (first: string, count: number) => (count > 1 ? `${first} (and ${count - 1} more)` : first)

export const configProblem = (error: ConfigError | Failure): ConfigProblem => {
  switch (error._tag) {
    case "ConfigParseError": {
      const { file, line, column, reason } = error as Extract<ConfigError, { _tag: "ConfigParseError" }>
      return { problem: `YAML syntax error: ${reason}`, location: `${file}:${line}:${column}`, problems: [error.message] }
    }
    case "ConfigValidationError": {
      const { issues } = error as Extract<ConfigError, { _tag: "ConfigValidationError" }>
      const [first] = issues
      if (first === undefined) return { problem: "the config is invalid", problems: [] }
      return {
        problem: more(`Validation error at "${first.path}": ${first.message}`, issues.length),
        ...(first.location !== undefined ? { location: first.location } : {}),
        problems: error.message.split("\n")
      }
    }
    case "ConfigNotFoundError":
      return { problem: "the file is gone (deleted or moved)", problems: [error.message.split("\n")[0]!] }
    default: {
      const lines = error.message.split("\n").filter((line) => line !== "")
      return { problem: more(lines[0] ?? error._tag, lines.length), problems: lines }
    }
  }
}
