/** What each session procedure can fail with, as SessionManager's Shape says it. */
import type { ControlDirUnusable } from "../hosts/errors.ts"
import type { AgentError } from "../plugins/agent/Agent.ts"
import type { PluginBuildError } from "../plugins/registry.ts"
import type { DeliveryUnconfirmed, RuntimeError } from "../plugins/runtime/Runtime.ts"
import type { InvalidIssueId, IssueNotFound, TrackerAuthFailed } from "../plugins/tracker/Tracker.ts"
import type { WorkspaceError } from "../plugins/workspace/Workspace.ts"
import type { SessionNotFound, StoreError } from "../store/errors.ts"
import type { QueueError } from "../store/QueueStore.ts"
import type {
  EmptyTask,
  HostUnreachable,
  IssueClosed,
  IssueHasSession,
  KillIncomplete,
  NoHostFits,
  NotQueued,
  ProjectNotFound,
  ProjectNotGiven,
  QueueEntryStarting,
  RemoveRefused,
  RestoreFailed,
  SessionNotRunning,
  SessionRunning,
  SpawnFailed,
  UnknownHost
} from "./errors.ts"
import type { OrchestratorNotReady } from "./orchestrator.ts"
import type { ClaimError } from "./spawn-run.ts"

/** A project's plugins could not be built, or its host's connection could not be set up. */
export type PluginsError = PluginBuildError | ControlDirUnusable

/** Reconcile: what undoing a spawn, finishing a kill or recovering a queue entry ran into. */
export type ReconcileError = StoreError | QueueError | RuntimeError | WorkspaceError | KillIncomplete | PluginsError

export type SpawnError =
  | ProjectNotFound
  | ProjectNotGiven
  | InvalidIssueId
  | EmptyTask
  | IssueHasSession
  | IssueNotFound
  | IssueClosed
  | TrackerAuthFailed
  | NoHostFits
  | UnknownHost
  | SpawnFailed
  | ClaimError
  | StoreError
  | QueueError
  | PluginsError
  | ReconcileError

export type BatchSpawnError = ProjectNotFound | ProjectNotGiven | InvalidIssueId | QueueError | PluginsError | ReconcileError

export type SendError =
  | ProjectNotFound
  | SessionNotFound
  | SessionNotRunning
  | HostUnreachable
  | RuntimeError
  | DeliveryUnconfirmed
  | StoreError
  | PluginsError

export type KillError =
  | ProjectNotFound
  | SessionNotFound
  | HostUnreachable
  | KillIncomplete
  | RuntimeError
  | StoreError
  | PluginsError
  | ReconcileError

export type RestoreError =
  | ProjectNotFound
  | SessionNotFound
  | SessionRunning
  | RestoreFailed
  | HostUnreachable
  | AgentError
  | RuntimeError
  | WorkspaceError
  | StoreError
  | PluginsError
  | ReconcileError

export type CleanupError = ProjectNotFound | RuntimeError | WorkspaceError | StoreError | PluginsError | ReconcileError

export type RemoveError = SessionNotFound | RemoveRefused | RuntimeError | WorkspaceError | StoreError | PluginsError

export type PruneError = RuntimeError | WorkspaceError | StoreError | PluginsError | ReconcileError

export type QueueAddError = ProjectNotFound | ProjectNotGiven | InvalidIssueId | IssueHasSession | IssueNotFound | QueueError

export type QueueTaskError = ProjectNotFound | ProjectNotGiven | EmptyTask | QueueError

export type QueueRemoveError = NotQueued | QueueEntryStarting | QueueError | ReconcileError

export type QueueListError = StoreError

export type AdmitError = QueueError | ControlDirUnusable

export type ProbeAllError = RuntimeError | ControlDirUnusable

export type OrchestrateError =
  | ProjectNotFound
  | ProjectNotGiven
  | OrchestratorNotReady
  | AgentError
  | RuntimeError
  | WorkspaceError
  | StoreError
  | PluginsError
