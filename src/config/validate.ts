/**
 * Raw value (parsed YAML or any object) → validated, normalized OrchestratorConfig, or every problem at once.
 * Order: `${VAR}` expansion, unknown keys, the Schema, then derived defaults and cross-field rules.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { dirname } from "node:path"
import { expandEnv, type ExpansionIssue } from "./env-expansion.ts"
import { ConfigValidationError, DuplicateProjectIdError, DuplicateSessionPrefixError, type ValidationIssue } from "./errors.ts"
import { HostSpec } from "./host-spec.ts"
import { Host } from "./host.ts"
import { normalize } from "./normalize.ts"
import {
  DefaultPlugins,
  Intake,
  OrchestratorConfig,
  PluginModule,
  PRIORITIES,
  ProjectConfig,
  REACTION_KEYS,
  ReactionConfig,
  ReactionOverride
} from "./schema.ts"
import { didYouMean } from "./suggest.ts"

type Path = ReadonlyArray<string | number>

export interface ValidateOptions {
  /** Absolute path of the file the raw value came from. */
  readonly configPath?: string
  /** `file:line:col` of the value at a path, when the raw value came from a file. */
  readonly locate?: (path: Path) => string | undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

const checkKeys = (
  node: unknown,
  path: Path,
  allowed: ReadonlyArray<string>,
  kind: string,
  issues: Array<ExpansionIssue>
) => {
  if (!isRecord(node)) return
  for (const key of Object.keys(node)) {
    if (!allowed.includes(key)) {
      // A project's key written at the top level or under `defaults` (which holds the default plugins only): say where it goes.
      const atTopOrDefaults = path.length === 0 || (path.length === 1 && path[0] === "defaults")
      const where = atTopOrDefaults && Object.hasOwn(ProjectConfig.fields, key) ? ` (it is a project's key: write it under projects.<name>)` : ""
      issues.push({ path: [...path, key], message: `Unknown ${kind} "${key}"${didYouMean(key, allowed)}${where}` })
    }
  }
}

const eachEntry = (node: unknown, f: (key: string, value: unknown) => void) => {
  if (isRecord(node)) { for (const [key, value] of Object.entries(node)) f(key, value) }
}

/** Keys that are not part of the format, at every level where the format is closed. */
const unknownKeys = (raw: Record<string, unknown>): Array<ExpansionIssue> => {
  const issues: Array<ExpansionIssue> = []
  checkKeys(raw, [], Object.keys(OrchestratorConfig.fields), "key", issues)
  checkKeys(raw.defaults, ["defaults"], Object.keys(DefaultPlugins.fields), "key", issues)
  checkKeys(raw.notificationRouting, ["notificationRouting"], PRIORITIES, "priority", issues)
  checkKeys(raw.reactions, ["reactions"], REACTION_KEYS, "reaction", issues)
  eachEntry(raw.reactions, (key, reaction) => checkKeys(reaction, ["reactions", key], Object.keys(ReactionConfig.fields), "key", issues))
  eachEntry(raw.hosts, (name, host) => checkKeys(host, ["hosts", name], Object.keys(HostSpec.fields), "key", issues))
  eachEntry(raw.plugins, (name, module) => checkKeys(module, ["plugins", name], Object.keys(PluginModule.fields), "key", issues))
  eachEntry(raw.projects, (projectKey, project) => {
    checkKeys(project, ["projects", projectKey], Object.keys(ProjectConfig.fields), "key", issues)
    if (!isRecord(project)) return
    checkKeys(project.intake, ["projects", projectKey, "intake"], Object.keys(Intake.fields), "key", issues)
    checkKeys(project.reactions, ["projects", projectKey, "reactions"], REACTION_KEYS, "reaction", issues)
    eachEntry(
      project.reactions,
      (key, reaction) => checkKeys(reaction, ["projects", projectKey, "reactions", key], Object.keys(ReactionOverride.fields), "key", issues)
    )
  })
  return issues
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** A Schema's failure as one issue per path (`Missing key` said as `Required`, unless the Schema says more). */
export const schemaIssues = (issue: SchemaIssue.Issue): Array<ExpansionIssue> =>
  formatter(issue).issues.map((i) => ({
    path: (i.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p) as string | number),
    message: i.message === "Missing key" ? "Required" : i.message
  }))

const pathKey = (path: Path) => path.join(".")

export const toValidationIssues = (issues: ReadonlyArray<ExpansionIssue>, options: ValidateOptions): Array<ValidationIssue> => {
  const seen = new Set<string>()
  const result: Array<ValidationIssue> = []
  for (const issue of issues) {
    const path = pathKey(issue.path) || "<root>"
    // One problem per path: an unset ${VAR} also makes the Schema reject the unexpanded text.
    if (seen.has(path)) continue
    seen.add(path)
    const location = options.locate?.(issue.at ?? issue.path)
    result.push({ path, message: issue.message, ...(location !== undefined ? { location } : {}) })
  }
  return result
}

/** Validates and normalizes a raw config. An empty document counts as `{}`. */
export const validateConfig = Effect.fn("validateConfig")(function*(
  raw: unknown,
  options: ValidateOptions = {}
): Effect.fn.Return<OrchestratorConfig, ConfigValidationError | DuplicateProjectIdError | DuplicateSessionPrefixError> {
  const host = yield* Host
  const fail = (issues: ReadonlyArray<ExpansionIssue>) => new ConfigValidationError({ issues: toValidationIssues(issues, options) })

  const input = raw === null || raw === undefined ? {} : raw
  if (!isRecord(input)) {
    return yield* fail([{ path: [], message: "Expected a mapping of settings (with a `projects` key)" }])
  }
  const expanded = expandEnv(input, host.env)
  const structural = [...expanded.issues, ...unknownKeys(input)]
  const decoded = Schema.decodeUnknownResult(OrchestratorConfig)(expanded.value, { errors: "all" })
  if (decoded._tag === "Failure") {
    return yield* fail([...structural, ...schemaIssues(decoded.failure.issue)])
  }
  if (structural.length > 0) return yield* fail(structural)

  const normalized = normalize(decoded.success, {
    homeDir: host.homeDir,
    baseDir: options.configPath === undefined ? host.cwd : dirname(options.configPath),
    ...(options.configPath !== undefined ? { configPath: options.configPath } : {})
  })
  switch (normalized._tag) {
    case "Ok":
      return normalized.config
    case "Issues":
      return yield* fail(normalized.issues)
    case "Duplicate":
      return yield* normalized.error
  }
})

/** Every default, and no projects. */
export const getDefaultConfig = (): Effect.Effect<OrchestratorConfig> => validateConfig({ projects: {} }).pipe(Effect.orDie)
