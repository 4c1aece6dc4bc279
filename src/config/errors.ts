/** Why a configuration could not be loaded. Every one is a user error: exit code 2 in the CLI. */
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"

const USAGE_EXIT_CODE = 2

/**
 * The places searched (src/config/find.ts), said in one line: the first directory of the upward search stands for
 * the whole chain above it; the home locations are named.
 */
export const whereSearched = (searched: ReadonlyArray<string>): string => {
  if (searched.length === 1) return `nothing at ${searched[0]}`
  const upward = searched.filter((place) => /\/orchestrator\.ya?ml$/.test(place))
  const start = upward[0]?.replace(/\/orchestrator\.ya?ml$/, "")
  const others = searched.filter((place) => !upward.includes(place) && place.endsWith(".yaml"))
  return [
    start === undefined ? undefined : `no orchestrator.yaml (or .yml) in ${start || "/"} or any directory above it`,
    others.length > 0 ? `nor ${others.join(" or ")} (or .yml)` : undefined
  ].filter((part) => part !== undefined).join(", ")
}

export class ConfigNotFoundError extends Schema.TaggedError<ConfigNotFoundError>()("ConfigNotFoundError", {
  searched: Schema.Array(Schema.String)
}) {
  override readonly [Runtime.errorExitCode] = USAGE_EXIT_CODE
  override get message() {
    return `No config file found: ${whereSearched(this.searched)}; create one with \`orch init\`, or point ORCH_CONFIG_PATH at one`
  }
}

export class ConfigReadError extends Schema.TaggedError<ConfigReadError>()("ConfigReadError", {
  file: Schema.String,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = USAGE_EXIT_CODE
  override get message() {
    return `Cannot read the config: ${this.reason}`
  }
}

export class ConfigParseError extends Schema.TaggedError<ConfigParseError>()("ConfigParseError", {
  file: Schema.String,
  line: Schema.Number,
  column: Schema.Number,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = USAGE_EXIT_CODE
  override get message() {
    return `${this.file}:${this.line}:${this.column}: YAML syntax error: ${this.reason}`
  }
}

export const ValidationIssue = Schema.Struct({
  /** Dot-joined path of the offending value, e.g. `projects.app.repo`. */
  path: Schema.String,
  message: Schema.String,
  /** `file:line:col` of the offending value, when the config came from a YAML file. */
  location: Schema.optionalKey(Schema.String)
})
export type ValidationIssue = typeof ValidationIssue.Type

export const formatIssue = (issue: ValidationIssue): string =>
  `Validation error at "${issue.path}": ${issue.message}${issue.location ? ` (${issue.location})` : ""}`

export class ConfigValidationError extends Schema.TaggedError<ConfigValidationError>()("ConfigValidationError", {
  issues: Schema.Array(ValidationIssue)
}) {
  override readonly [Runtime.errorExitCode] = USAGE_EXIT_CODE
  override get message() {
    return this.issues.map(formatIssue).join("\n")
  }
}

export class DuplicateProjectIdError extends Schema.TaggedError<DuplicateProjectIdError>()("DuplicateProjectIdError", {
  id: Schema.String,
  /** The config keys of the two projects. */
  keys: Schema.Array(Schema.String),
  /** Their expanded paths, in the same order as `keys`. */
  paths: Schema.Array(Schema.String)
}) {
  override readonly [Runtime.errorExitCode] = USAGE_EXIT_CODE
  override get message() {
    const projects = this.keys.map((key, i) => `"${key}" (${this.paths[i]})`).join(" and ")
    return `Duplicate project ID detected: "${this.id}". Projects ${projects} have paths with the same directory name, ` +
      `and a project's id is its directory name. Rename one directory.`
  }
}

export class DuplicateSessionPrefixError extends Schema.TaggedError<DuplicateSessionPrefixError>()("DuplicateSessionPrefixError", {
  prefix: Schema.String,
  keys: Schema.Array(Schema.String)
}) {
  override readonly [Runtime.errorExitCode] = USAGE_EXIT_CODE
  override get message() {
    return `Duplicate session prefix detected: "${this.prefix}". Projects ${this.keys.map((k) => `"${k}"`).join(" and ")} ` +
      `would name their sessions alike; add an explicit \`sessionPrefix\` to one of them ` +
      `(e.g. sessionPrefix: ${this.prefix}2).`
  }
}

export type ConfigError =
  | ConfigNotFoundError
  | ConfigReadError
  | ConfigParseError
  | ConfigValidationError
  | DuplicateProjectIdError
  | DuplicateSessionPrefixError
