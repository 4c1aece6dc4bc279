/**
 * `orch/plugins`: what the author of a plugin module needs. A module exports `manifest` and `create(config)`;
 * `create` returns the slot's component (`Runtime`, `Agent`, `Workspace`, `Tracker`, `Scm` or `Notifier`), whose
 * methods may answer with a value, a Promise or an Effect. What a method returns is checked against the Schemas
 * here (`…FromPlugin`); the types of the same names are what to return. The built-in plugins are modules too:
 * `orch/plugins/<slot>/<name>`.
 */
export type { AgentComponent as Agent, AgentLaunchFromPlugin as AgentLaunch } from "./contract/agent.ts"
export { AgentLaunchFromPlugin } from "./contract/agent.ts"
export type { Activity, AgentContext } from "./contract/agent.ts"
export { SLOTS } from "./contract/common.ts"
export type { PluginManifest, PluginModule, Returned, Slot } from "./contract/common.ts"
export type { BuiltinNotifier, NotifierComponent as Notifier } from "./contract/notifier.ts"
export { NotificationInput } from "./contract/notifier.ts"
export type { MessageContext, Notification, NotificationAction } from "./contract/notifier.ts"
export type {
  RuntimeAttachOptions,
  RuntimeAttachSize,
  RuntimeComponent as Runtime,
  RuntimeHandleFromPlugin as RuntimeHandle,
  RuntimeLaunch,
  RuntimePluginHandle,
  RuntimePluginTerminal as RuntimeTerminal
} from "./contract/runtime.ts"
export { RuntimeHandleFromPlugin, TerminalFromPlugin } from "./contract/runtime.ts"
export type { MergeMethod, PullRequestViewFromPlugin as PullRequestView, ScmComponent as Scm } from "./contract/scm.ts"
export { PullRequestViewFromPlugin } from "./contract/scm.ts"
export type {
  IssueFromPlugin as Issue,
  IssueStateFromPlugin as IssueState,
  IssueStatesFromPlugin as IssueStates,
  SessionUpdate,
  TrackerComponent as Tracker
} from "./contract/tracker.ts"
export { IssueFromPlugin, IssueStateFromPlugin, IssueStatesFromPlugin } from "./contract/tracker.ts"
export type {
  UnsavedWorkFromPlugin as UnsavedWork,
  WorkspaceComponent as Workspace,
  WorkspaceCreate,
  WorkspaceDestroy,
  WorkspaceFromPlugin as CreatedWorkspace,
  WorkspaceProject
} from "./contract/workspace.ts"
export { UnsavedWorkFromPlugin, WorkspaceFromPlugin } from "./contract/workspace.ts"
