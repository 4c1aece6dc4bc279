/**
 * The file format of `orchestrator.yaml`, as Schemas.
 *
 * Each Schema decodes what a user writes (the Encoded side, also exported as JSON Schema) into a value with
 * every static default filled in. Defaults that depend on other fields (a project's `name`, `sessionPrefix`,
 * `scm`, expanded paths, the merged reactions) are derived afterwards by `normalize.ts`, whose result is the
 * `OrchestratorConfig` type at the bottom of this file.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { EventPriority } from "../domain/priority.ts"
import { HostSpec } from "./host-spec.ts"

/** An optional key with a default; the default and description show in the JSON Schema. */
const withDefault = <S extends Schema.Top>(value: S["Encoded"], description?: string) => (schema: S) =>
  Schema.withDecodingDefaultKey<S>(Effect.succeed(value))(
    schema.annotate({ default: value, ...(description !== undefined ? { description } : {}) }) as S
  )

const Port = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 65535 }, { message: "Expected a port number between 1 and 65535" }))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { message: "Expected a non-negative whole number" }))
const NonEmpty = Schema.String.check(Schema.isMinLength(1, { message: "Expected a non-empty string" }))
const StringList = Schema.Array(Schema.String)
/** Variables by name; each name one /bin/sh can set (the agent's shell sets its environment). */
const EnvVars = Schema.Record(Schema.String, Schema.String).annotate({
  description: "Environment variables the agent starts with, over the supervisor's (e.g. ANTHROPIC_BASE_URL); use ${VAR} for secrets"
}).check(Schema.makeFilter((vars) => {
  const bad = Object.keys(vars).filter((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name))
  return bad.length === 0 ||
    `Expected variable names of letters, digits and _ (not starting with a digit), not ${bad.map((name) => JSON.stringify(name)).join(", ")}`
}))

/** A duration such as `90s`, `10m`, `2h`, `1d` or `500ms`. */
export const DurationString = Schema.String.check(
  Schema.isPattern(/^\d+(ms|s|m|h|d)$/u, { message: "Expected a duration such as \"30s\", \"10m\" or \"2h\"" })
).annotate({ description: "A duration: a whole number followed by ms, s, m, h or d (\"10m\")" })

/** A duration above zero: a threshold of 0 would fire at once, every cycle (a rate-limited agent told to go on at once). */
const PositiveDurationString = DurationString.check(
  Schema.isPattern(/^0*[1-9]/u, { message: "Expected a duration above zero, such as \"30s\" or \"5m\"" })
)

export const SESSION_PREFIX_PATTERN = /^[a-zA-Z0-9_-]+$/u
export const SessionPrefix = Schema.String.check(
  Schema.isPattern(SESSION_PREFIX_PATTERN, { message: "sessionPrefix must match [a-zA-Z0-9_-]+" })
)

export { EventPriority, PRIORITIES } from "../domain/priority.ts"

export const ReactionAction = Schema.Literals(["send-to-agent", "notify", "auto-merge"])
export type ReactionAction = typeof ReactionAction.Type

/** The reaction keys orch knows; each is triggered by one kind of event (see docs/reactions.md). */
export const REACTION_KEYS = [
  "ci-failed",
  "changes-requested",
  "merge-conflicts",
  "approved-and-green",
  "agent-stuck",
  "agent-needs-input",
  "agent-exited",
  "agent-rate-limited",
  "all-complete",
  "predicted-conflict"
] as const
export type ReactionKey = typeof REACTION_KEYS[number]

const reactionFields = {
  auto: Schema.Boolean.pipe(withDefault(true)),
  action: ReactionAction,
  message: Schema.optionalKey(Schema.String),
  priority: Schema.optionalKey(EventPriority),
  retries: Schema.optionalKey(NonNegativeInt),
  escalateAfter: Schema.optionalKey(Schema.Union([NonNegativeInt, DurationString])),
  threshold: Schema.optionalKey(PositiveDurationString),
  includeSummary: Schema.optionalKey(Schema.Boolean),
  continueMessage: Schema.optionalKey(Schema.String).annotate({
    description: "agent-rate-limited: what orch tells the agent when its limit resets (with auto: true)"
  })
}

export const ReactionConfig = Schema.Struct(reactionFields).annotate({
  description: "What orch does when the reaction's event happens"
})
export type ReactionConfig = typeof ReactionConfig.Type

/** A project's override of a reaction: any subset of the fields, merged field by field over the global one. */
export const ReactionOverride = Schema.Struct({
  auto: Schema.optionalKey(Schema.Boolean),
  action: Schema.optionalKey(ReactionAction),
  message: reactionFields.message,
  priority: reactionFields.priority,
  retries: reactionFields.retries,
  escalateAfter: reactionFields.escalateAfter,
  threshold: reactionFields.threshold,
  includeSummary: reactionFields.includeSummary,
  continueMessage: reactionFields.continueMessage
})
export type ReactionOverride = typeof ReactionOverride.Type

/** Intake: the supervisor queues the tracker's open issues that carry the labels (docs/queue.md). */
export const Intake = Schema.Struct({
  labels: Schema.Array(NonEmpty).check(Schema.isMinLength(1, { message: "Expected at least one label" })).annotate({
    description: "Open issues that carry every one of these labels are queued, each once"
  }),
  pollIntervalMs: Schema.Int.check(
    Schema.isGreaterThanOrEqualTo(1000, { message: "Expected at least 1000 (milliseconds)" }),
    Schema.isLessThanOrEqualTo(86_400_000, { message: "Expected at most 86400000 (a day, in milliseconds)" })
  ).pipe(withDefault(60000, "How often the tracker is asked, in milliseconds: one request per poll")),
  priorities: Schema.Record(Schema.String, Schema.Int).pipe(
    withDefault({}, "A queued issue's priority from its labels (label → priority; the highest of its labels wins; none: 0)")
  )
}).annotate({ description: "Queue the tracker's open issues that carry these labels, and drop queued ones that no longer do" })
export type Intake = typeof Intake.Type

const pluginFields = {
  plugin: NonEmpty,
  package: Schema.optionalKey(NonEmpty),
  path: Schema.optionalKey(NonEmpty)
}
const pluginConfig = (description: string) =>
  Schema.StructWithRest(Schema.Struct(pluginFields), [Schema.Record(Schema.String, Schema.Unknown)]).annotate({
    description
  })

/** A plugin's settings, or only its name (`tracker: none` is `tracker: {plugin: none}`). */
const pluginConfigOrName = (description: string) => {
  const settings = pluginConfig(description)
  const name = NonEmpty.annotate({ description: "The plugin's name alone, when it needs no keys" }).pipe(
    Schema.decodeTo(settings, SchemaTransformation.transform({ decode: (plugin: string) => ({ plugin }), encode: (config) => config.plugin }))
  )
  return Schema.Union([settings, name]).annotate({ description })
}

/** `plugin` names a built-in or the plugin's manifest name; `package` or `path` loads a plugin module. */
export const TrackerConfig = pluginConfigOrName(
  "Issue tracker plugin (repohost, tracker-b, none or custom) and its keys; `none`: issues are not looked up anywhere"
)
export type TrackerConfig = typeof TrackerConfig.Type
export const ScmConfig = pluginConfigOrName("Source-control host plugin (repohost, none or custom) and its keys; `none`: no pull requests are followed")
export type ScmConfig = typeof ScmConfig.Type
export const NotifierConfig = pluginConfig("Notifier plugin (hosted, desktop, chat, webhook, email or custom) and its keys")
export type NotifierConfig = typeof NotifierConfig.Type
export type PluginConfig = TrackerConfig

export const AgentConfig = Schema.StructWithRest(
  Schema.Struct({
    permissions: Schema.Literals(["skip", "auto-edit", "default"]).pipe(
      withDefault("skip", "skip: the agent runs without asking for permissions; auto-edit: edits allowed, commands ask; default: the agent's own prompts")
    ),
    model: Schema.optionalKey(NonEmpty),
    quietMs: NonNegativeInt.pipe(
      withDefault(
        3000,
        "Milliseconds without output after which an agent that says nothing itself (no hooks, no orch report, no screen orch recognises) counts as ready"
      )
    ),
    env: Schema.optionalKey(EnvVars)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ description: "Agent-specific settings; unknown keys are passed to the agent plugin" })
export type AgentConfig = typeof AgentConfig.Type

export const DefaultPlugins = Schema.Struct({
  runtime: NonEmpty.pipe(withDefault("multiplexer")),
  agent: NonEmpty.pipe(withDefault("coding-agent")),
  workspace: NonEmpty.pipe(withDefault("worktree")),
  notifiers: StringList.pipe(withDefault(["hosted", "desktop"])),
  sessionMemoryMb: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Expected a whole number of MB, at least 1" })).pipe(
    withDefault(
      1024,
      "Memory (MB) placement reserves per session on a host: a host takes a new session only with this much free (MemAvailable)"
    )
  )
})
export type DefaultPlugins = typeof DefaultPlugins.Type

export const ProjectConfig = Schema.Struct({
  name: Schema.optionalKey(NonEmpty),
  repo: Schema.String.check(
    Schema.isPattern(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/u, { message: "Expected \"owner/repo\"" })
  ),
  path: NonEmpty.annotate({ description: "The project's directory; a leading ~/ is the home directory" }),
  defaultBranch: NonEmpty.pipe(withDefault("main")),
  sessionPrefix: Schema.optionalKey(SessionPrefix),
  runtime: Schema.optionalKey(NonEmpty),
  agent: Schema.optionalKey(NonEmpty),
  workspace: Schema.optionalKey(NonEmpty),
  tracker: Schema.optionalKey(TrackerConfig),
  scm: Schema.optionalKey(ScmConfig),
  hosts: Schema.optionalKey(StringList.annotate({ description: "The hosts (names in the top-level `hosts`, or local) its sessions may run on; default all" })),
  hostLabels: Schema.optionalKey(StringList.annotate({ description: "Labels a host needs, every one, to run its sessions" })),
  symlinks: StringList.pipe(withDefault([])),
  postCreate: StringList.pipe(withDefault([])),
  maxSessions: Schema.optionalKey(NonNegativeInt).annotate({
    description: "At most this many of the project's sessions run at once; more wait in the queue (`orch queue ls`). Unset: no limit"
  }),
  maxAwaitingReview: Schema.optionalKey(NonNegativeInt).annotate({
    description:
      "No new session of the project starts while this many of its PRs wait on a person's review (open, checks green, not approved); queued work waits. Unset: no limit"
  }),
  intake: Schema.optionalKey(Intake),
  mergeTrain: Schema.Boolean.pipe(withDefault(
    false,
    "Approved and green PRs join a merge train that brings each up to date with the default branch, waits for its checks there and merges it, one at a time (docs/supervisor.md \"Merge train\"); replaces auto-merge for this project"
  )),
  agentConfig: AgentConfig.pipe(withDefault({})),
  reactions: Schema.Record(Schema.String, ReactionOverride).pipe(withDefault({})),
  agentRules: Schema.optionalKey(Schema.String),
  agentRulesFile: Schema.optionalKey(NonEmpty),
  orchestratorRules: Schema.optionalKey(Schema.String).annotate({
    description: "Reserved: rules injected verbatim into the orchestrator session's prompt"
  })
})
export type ProjectConfigInput = typeof ProjectConfig.Encoded

export const NotificationRouting = Schema.Struct({
  urgent: Schema.optionalKey(StringList),
  action: Schema.optionalKey(StringList),
  warning: Schema.optionalKey(StringList),
  info: Schema.optionalKey(StringList)
}).annotate({ description: "Notifier names per priority; an empty list sends nowhere" })

/** A plugin module named by `runtime`, `agent` or `workspace` (or a tracker/scm/notifier `plugin`). */
export const PluginModule = Schema.Struct({
  package: Schema.optionalKey(NonEmpty),
  path: Schema.optionalKey(NonEmpty)
}).annotate({ description: "Where a plugin module comes from: an npm package name, or a file (relative to this config file)" })
export type PluginModule = typeof PluginModule.Type

export const OrchestratorConfig = Schema.Struct({
  $schema: Schema.optionalKey(Schema.String),
  host: NonEmpty.pipe(withDefault("127.0.0.1", "Address the dashboard and its terminal sockets listen on; 0.0.0.0 for every interface")),
  port: Port.pipe(withDefault(3000, "Web dashboard port")),
  terminalPort: Port.pipe(withDefault(3001, "Terminal WebSocket port: every session's terminal, whatever its runtime")),
  directTerminalPort: Port.pipe(withDefault(3003, "Deprecated: serves the same terminal sockets as terminalPort; the dashboard no longer uses it")),
  readyThresholdMs: NonNegativeInt.pipe(withDefault(300000, "Milliseconds after which a ready session counts as idle")),
  pollIntervalMs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1000, { message: "Expected at least 1000 (milliseconds)" }))
    .pipe(withDefault(30000, "Base interval of the repohost poll, in milliseconds")),
  maxSessions: Schema.optionalKey(NonNegativeInt).annotate({
    description: "At most this many sessions (all projects) run at once; more wait in the queue (`orch queue ls`). Unset: no limit"
  }),
  defaults: DefaultPlugins.pipe(withDefault({})),
  projects: Schema.Record(Schema.String, ProjectConfig),
  hosts: Schema.Record(Schema.String, HostSpec).pipe(
    withDefault({}, "Machines sessions may run on, reached through OpenSSH, by name; the machine orch runs on is always the host `local`")
  ),
  notifiers: Schema.Record(Schema.String, NotifierConfig).pipe(withDefault({})),
  plugins: Schema.Record(Schema.String, PluginModule).pipe(
    withDefault({}, "Plugin modules by name, for runtime, agent, workspace, tracker, scm or notifier choices")
  ),
  notificationRouting: Schema.optionalKey(NotificationRouting),
  reactions: Schema.Record(Schema.String, ReactionConfig).pipe(withDefault({}))
}).annotate({ title: "orchestrator.yaml", description: "Configuration of orch" })
export type OrchestratorConfigInput = typeof OrchestratorConfig.Encoded
type Decoded = typeof OrchestratorConfig.Type

/** A project after normalization: every default applied, paths expanded, plugins resolved. */
export interface ProjectConfig extends Omit<typeof ProjectConfig.Type, "tracker" | "scm"> {
  /** The project id: the basename of `path`. */
  readonly id: string
  /** The project's key in `projects`. */
  readonly key: string
  readonly name: string
  readonly sessionPrefix: string
  readonly runtime: string
  readonly agent: string
  readonly workspace: string
  readonly tracker: TrackerConfig
  readonly scm?: ScmConfig
}

/** The validated, normalized configuration. */
export interface OrchestratorConfig extends Omit<Decoded, "$schema" | "projects" | "notificationRouting" | "reactions"> {
  /** Absolute path of the file it was loaded from, when it came from a file. */
  readonly configPath?: string
  readonly projects: Readonly<Record<string, ProjectConfig>>
  readonly notificationRouting: Readonly<Record<EventPriority, ReadonlyArray<string>>>
  readonly reactions: Readonly<Record<ReactionKey, ReactionConfig>>
}
