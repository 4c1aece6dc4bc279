/**
 * Plugin-module components seen through the slot interfaces. A component implements the methods of its slot
 * (src/plugins/contract/, documented in docs/plugins.md); optional methods get a safe default. What a method
 * returns is decoded with its contract's Schema: another shape fails the call, naming what is wrong.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProjectConfig } from "../config/schema.ts"
import { Activity, type RuntimeHandle } from "../domain/session.ts"
import type { AttachOptions, TerminalSize } from "../domain/terminal.ts"
import { AgentError, type AgentLaunch, type AgentShape } from "./agent/Agent.ts"
import { AgentLaunchFromPlugin } from "./contract/agent.ts"
import { LastOutputAtFromPlugin, RuntimeHandleFromPlugin } from "./contract/runtime.ts"
import { PullRequestViewFromPlugin } from "./contract/scm.ts"
import { IssueOrNoneFromPlugin, IssueStatesFromPlugin } from "./contract/tracker.ts"
import { UnsavedWorkFromPlugin, WorkspaceFromPlugin } from "./contract/workspace.ts"
import { callPluginDecoded, type LoadedPlugin } from "./loader.ts"
import { attachPluginTerminal } from "./runtime/plugin-terminal.ts"
import { type Liveness, RuntimeError, type RuntimeShape } from "./runtime/Runtime.ts"
import { ScmError, type ScmShape } from "./scm/Scm.ts"
import { IssueNotFound, type SessionUpdate, type TrackerShape, TrackerUnavailable } from "./tracker/Tracker.ts"
import { lookThenCreate, WorkspaceError, type WorkspaceShape } from "./workspace/Workspace.ts"

const has = (component: Record<string, unknown>, method: string) => typeof component[method] === "function"

export const runtimeFromPlugin = ({ manifest, component }: LoadedPlugin): RuntimeShape => {
  const name = manifest.name
  const call = <S extends Schema.Decoder<unknown>>(schema: S, operation: string, ...args: ReadonlyArray<unknown>) =>
    callPluginDecoded(schema, name, component, operation, ...args).pipe(
      Effect.mapError((error) => new RuntimeError({ plugin: name, operation, reason: error.reason }))
    )
  const theirs = (handle: RuntimeHandle) => ({ id: handle.id, runtimeName: name, data: handle.data })
  return {
    name,
    create: (spec) =>
      call(RuntimeHandleFromPlugin, "create", {
        sessionId: spec.sessionId,
        workingDir: spec.workingDir,
        command: spec.command,
        env: spec.env,
        unsetEnv: spec.unsetEnv
      }).pipe(Effect.map((handle) => ({ plugin: name, id: handle.id, data: handle.data ?? {} }))),
    send: (handle, text) => Effect.asVoid(call(Schema.Unknown, "sendCommand", theirs(handle), text)),
    capture: (handle, scrollback = 0) => has(component, "getOutput") ? call(Schema.String, "getOutput", theirs(handle), scrollback) : Effect.succeed(""),
    probe: (handles) =>
      Effect.forEach(handles, (handle) =>
        Effect.gen(function*() {
          const alive = has(component, "isAlive") ? yield* call(Schema.Boolean, "isAlive", theirs(handle)) : true
          const lastOutputAt = alive && has(component, "lastOutputAt") ? yield* call(LastOutputAtFromPlugin, "lastOutputAt", theirs(handle)) : undefined
          const liveness: Liveness = !alive ? { _tag: "Gone" } : lastOutputAt !== undefined ? { _tag: "Alive", lastOutputAt } : { _tag: "Alive" }
          return [handle.id, liveness] as const
        })).pipe(Effect.map((entries) => new Map(entries))),
    ...(has(component, "attach")
      ? { attach: (handle: RuntimeHandle, size: TerminalSize, options: AttachOptions) => attachPluginTerminal(name, component, theirs(handle), size, options) }
      : {}),
    destroy: (handle) => Effect.asVoid(call(Schema.Unknown, "destroy", theirs(handle)))
  }
}

const toLaunch = (launch: typeof AgentLaunchFromPlugin.Type): AgentLaunch =>
  typeof launch === "string"
    ? { command: launch, env: {} }
    : { command: launch.command, env: launch.env ?? {}, ...(launch.initialMessage !== undefined ? { initialMessage: launch.initialMessage } : {}) }

const isActivity = Schema.is(Activity)

export const agentFromPlugin = ({ manifest, component }: LoadedPlugin): AgentShape => {
  const name = manifest.name
  const launchWith = (method: string) => (context: Parameters<AgentShape["launch"]>[0]) =>
    callPluginDecoded(AgentLaunchFromPlugin, name, component, has(component, method) ? method : "launch", context).pipe(
      Effect.mapError((error) => new AgentError({ plugin: name, reason: `${error.method} failed: ${error.reason}` })),
      Effect.map(toLaunch)
    )
  const sync = <A>(method: string, fallback: A) => (screen: string): A => {
    if (!has(component, method)) return fallback
    try {
      return (component[method] as (screen: string) => A)(screen) ?? fallback
    } catch {
      return fallback
    }
  }
  return {
    name,
    launch: launchWith("launch"),
    resume: launchWith("resume"),
    isReadyForInput: sync("isReadyForInput", true),
    readsScreen: has(component, "activityFromScreen"),
    activityFromScreen: (screen) => {
      const activity = sync<unknown>("activityFromScreen", undefined)(screen)
      return isActivity(activity) ? activity : undefined
    }
  }
}

export const workspaceFromPlugin = ({ manifest, component }: LoadedPlugin): WorkspaceShape => {
  const name = manifest.name
  const call = <S extends Schema.Decoder<unknown>>(schema: S, operation: string, ...args: ReadonlyArray<unknown>) =>
    callPluginDecoded(schema, name, component, operation, ...args).pipe(
      Effect.mapError((error) => new WorkspaceError({ plugin: name, operation, reason: error.reason }))
    )
  const where = (project: ProjectConfig) => ({ projectPath: project.path, defaultBranch: project.defaultBranch, repo: project.repo })
  const hasBranch: WorkspaceShape["hasBranch"] = (project, branch) =>
    has(component, "hasBranch") ? call(Schema.Boolean, "hasBranch", where(project), branch) : Effect.succeed(false)
  return {
    name,
    create: lookThenCreate(
      hasBranch,
      (spec) =>
        call(WorkspaceFromPlugin, "create", { ...where(spec.project), sessionId: spec.sessionId, branch: spec.branch, path: spec.path }).pipe(
          Effect.map((made) => ({ path: made?.path ?? spec.path, branch: spec.branch, createdBranch: made?.createdBranch === true, warnings: [] }))
        )
    ),
    exists: (path) =>
      has(component, "exists")
        // Unsure is "there": a workspace is never given up on because the plugin could not tell.
        ? call(Schema.Boolean, "exists", path).pipe(Effect.orElseSucceed(() => true))
        : Effect.succeed(true),
    hasBranch,
    unsavedWork: (project, path) =>
      has(component, "unsavedWork") ? call(UnsavedWorkFromPlugin, "unsavedWork", where(project), path) : Effect.succeed({ uncommitted: 0, unpushed: 0 }),
    rescue: (project, path, ref, message) => call(Schema.String, "rescue", where(project), path, ref, message),
    destroy: (project, path, options) => Effect.asVoid(call(Schema.Unknown, "destroy", { ...where(project), path, ...options }))
  }
}

export const trackerFromPlugin = ({ manifest, component }: LoadedPlugin): TrackerShape => {
  const call = <S extends Schema.Decoder<unknown>>(schema: S, method: string, ...args: ReadonlyArray<unknown>) =>
    callPluginDecoded(schema, manifest.name, component, method, ...args).pipe(
      Effect.mapError((error) => new TrackerUnavailable({ tracker: manifest.name, reason: error.reason }))
    )
  return {
    name: manifest.name,
    namesBranches: component.namesBranches === true,
    getIssue: (issueId) =>
      call(IssueOrNoneFromPlugin, "getIssue", issueId).pipe(
        Effect.flatMap((issue) =>
          issue === null || issue === undefined
            ? Effect.fail(new IssueNotFound({ issueId, where: manifest.name }))
            : Effect.succeed({
              id: String(issue.id ?? issueId),
              title: issue.title,
              body: issue.body ?? "",
              labels: issue.labels ?? [],
              ...(issue.url !== undefined ? { url: issue.url } : {}),
              ...(issue.branchName !== undefined ? { branchName: issue.branchName } : {}),
              ...(issue.state !== undefined ? { state: issue.state } : {})
            })
        )
      ),
    ...(has(component, "issueStates")
      ? {
        issueStates: (issueIds: ReadonlyArray<string>) =>
          call(IssueStatesFromPlugin, "issueStates", issueIds).pipe(
            Effect.map((states) => new Map(states instanceof Map ? states : Object.entries(states)))
          )
      }
      : {}),
    ...(has(component, "onSessionEvent")
      ? { onSessionEvent: (update: SessionUpdate) => Effect.asVoid(call(Schema.Unknown, "onSessionEvent", update)) }
      : {})
  }
}

const NO_PULL_REQUEST = { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] } as const

export const scmFromPlugin = ({ manifest, component }: LoadedPlugin): ScmShape => {
  const call = <S extends Schema.Decoder<unknown>>(schema: S, operation: string, ...args: ReadonlyArray<unknown>) =>
    callPluginDecoded(schema, manifest.name, component, operation, ...args).pipe(
      Effect.mapError((error) => new ScmError({ plugin: manifest.name, operation, reason: error.reason }))
    )
  return {
    name: manifest.name,
    observe: (branch) => Effect.map(call(Schema.UndefinedOr(Schema.NullOr(PullRequestViewFromPlugin)), "observe", branch), (view) => view ?? NO_PULL_REQUEST),
    merge: (prNumber, method) => Effect.asVoid(call(Schema.Unknown, "merge", prNumber, method))
  }
}
