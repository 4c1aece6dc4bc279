/**
 * orch as an Effect library (`orch/effect`): the services a program composes, and the one composition of them
 * (`Orch.layer`, the one `orch start` runs), where a program's own Layers fill any plugin slot; the config functions
 * as Effects (they read the `Host` Reference, which a program may provide), with the Schemas and errors. The package
 * root has the config functions as Promises; `orch/testing` has the fakes and TestOrch. docs/library.md shows it all.
 */
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orchLayer, type OrchOptions, type PlatformServices } from "../actors/composition.ts"
import type { OrchestratorConfig } from "./config/schema.ts"

export { DEFAULT_NOTIFICATION_ROUTING, DEFAULT_REACTIONS } from "./config/defaults.ts"
export * from "./config/errors.ts"
export { findConfig } from "./config/find.ts"
export { Host, type HostShape } from "./config/host.ts"
export { renderConfigJsonSchema } from "./config/json-schema.ts"
export { loadConfig, loadConfigWithPath } from "./config/load.ts"
export { projectReactions } from "./config/normalize.ts"
export * from "./config/schema.ts"
export { generateSessionPrefix } from "./config/session-prefix.ts"
export { getDefaultConfig, validateConfig } from "./config/validate.ts"

// The plugin slots: each a service with its Shape and its errors.
export { Agent, type AgentContext, AgentError, type AgentLaunch, type AgentShape, type ScreenLimit } from "./plugins/agent/Agent.ts"
export { type NotifierEntry, type PluginLayersSpec, type SlotLayer } from "./plugins/layers.ts"
export { Notifier, NotifierConfigError, NotifierError, type NotifierShape } from "./plugins/notifier/Notifier.ts"
export { DeliveryUnconfirmed, type LaunchSpec, type Liveness, Runtime, RuntimeError, type RuntimeShape } from "./plugins/runtime/Runtime.ts"
export { type MergeMethod, NO_PULL_REQUEST, type PullRequestView, Scm, ScmError, type ScmShape } from "./plugins/scm/Scm.ts"
export {
  InvalidIssueId,
  type Issue,
  IssueNotFound,
  type IssueState,
  type IssueTrackerShape,
  type SessionUpdate,
  Tracker,
  TrackerAuthFailed,
  type TrackerError,
  type TrackerShape,
  TrackerUnavailable
} from "./plugins/tracker/Tracker.ts"
export {
  type BeforeMaking,
  type CreatedWorkspace,
  type MakingPlan,
  type UnsavedWork,
  Workspace,
  WorkspaceError,
  type WorkspaceShape,
  type WorkspaceSpec
} from "./plugins/workspace/Workspace.ts"

// What they exchange.
export type { OrchEvent } from "./domain/event.ts"
export type { MessageContext, Notification, NotificationAction } from "./domain/notification.ts"
export type { Activity, PullRequest, RuntimeHandle, SessionRecord, SessionStatus } from "./domain/session.ts"

// The sessions and their supervisor.
export { Supervisor } from "../actors/supervisor.ts"
export { SessionManager } from "./sessions/SessionManager.ts"
export type { SpawnTarget } from "./sessions/SessionOps.ts"
export { EventLog, type EventLogShape } from "./store/EventLog.ts"
export type { OrchOptions, PlatformServices }

/** orch composed from a config, as `orch start` runs it, with any slot filled by the program's own Layer. */
export const Orch = {
  /**
   * The supervisor of `config` running (its probe cycle, polls and reactions), with the SessionManager and the event
   * log, for as long as the Layer lives. Its state is in the Host's data directory (`~/.orchestrator`, or `ORCH_HOME`).
   */
  layer: orchLayer,
  /** The supervisor of `config`, running until interrupted: `orch start` without its dashboard and socket. */
  run: (config: OrchestratorConfig, options?: OrchOptions): Effect.Effect<never, Layer.Error<ReturnType<typeof orchLayer>>> =>
    Layer.launch(orchLayer(config, options))
} as const
