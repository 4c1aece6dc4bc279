/**
 * Plugin-module components seen through the slot interfaces. A component implements the methods of its slot
 * (documented in docs/plugins.md); optional methods get a safe default.
 */
import * as Effect from "effect/Effect"
import type { ProjectConfig } from "../config/schema.ts"
import type { Activity, RuntimeHandle } from "../domain/session.ts"
import { AgentError, type AgentLaunch, type AgentShape } from "./agent/Agent.ts"
import { callPlugin, type LoadedPlugin } from "./loader.ts"
import { RuntimeError, type Liveness, type RuntimeShape } from "./runtime/Runtime.ts"
import { ScmError, type PullRequestView, type ScmShape } from "./scm/Scm.ts"
import { IssueNotFound, TrackerUnavailable, type Issue, type IssueState, type SessionUpdate, type TrackerShape } from "./tracker/Tracker.ts"
import { WorkspaceError, type WorkspaceShape } from "./workspace/Workspace.ts"

const has = (component: Record<string, unknown>, method: string) => typeof component[method] === "function"

export const runtimeFromPlugin = ({ manifest, component }: LoadedPlugin): RuntimeShape => {
  const name = manifest.name
  const call = (operation: string, ...args: ReadonlyArray<unknown>) =>
    callPlugin(name, component, operation, ...args).pipe(
      Effect.mapError((error) => new RuntimeError({ plugin: name, operation, reason: error.reason }))
    )
  const theirs = (handle: RuntimeHandle) => ({ id: handle.id, runtimeName: name, data: handle.data })
  return {
    name,
    create: (spec) =>
      call("create", { sessionId: spec.sessionId, workingDir: spec.workingDir, command: spec.command, env: spec.env, unsetEnv: spec.unsetEnv }).pipe(
        Effect.map((made) => {
          const handle = (made ?? {}) as { id?: unknown; data?: unknown }
          return {
            plugin: name,
            id: typeof handle.id === "string" ? handle.id : spec.sessionId,
            data: typeof handle.data === "object" && handle.data !== null ? (handle.data as Record<string, unknown>) : {}
          }
        })
      ),
    send: (handle, text) => Effect.asVoid(call("sendCommand", theirs(handle), text)),
    capture: (handle, scrollback = 0) =>
      has(component, "getOutput") ? call("getOutput", theirs(handle), scrollback).pipe(Effect.map(String)) : Effect.succeed(""),
    probe: (handles) =>
      Effect.forEach(handles, (handle) =>
        Effect.gen(function*() {
          const alive = has(component, "isAlive") ? Boolean(yield* call("isAlive", theirs(handle))) : true
          // `lastOutputAt(handle)`: when its terminal last printed anything (ms since the epoch), for quiescence.
          const output = alive && has(component, "lastOutputAt") ? yield* call("lastOutputAt", theirs(handle)) : undefined
          const liveness: Liveness = !alive
            ? { _tag: "Gone" }
            : typeof output === "number" && Number.isFinite(output)
            ? { _tag: "Alive", lastOutputAt: output }
            : { _tag: "Alive" }
          return [handle.id, liveness] as const
        })).pipe(Effect.map((entries) => new Map(entries))),
    destroy: (handle) => Effect.asVoid(call("destroy", theirs(handle)))
  }
}

const toLaunch = (plugin: string, value: unknown): Effect.Effect<AgentLaunch, AgentError> => {
  if (typeof value === "string") return Effect.succeed({ command: value, env: {} })
  const launch = value as { command?: unknown; env?: unknown; initialMessage?: unknown } | null
  if (launch === null || typeof launch?.command !== "string") {
    return Effect.fail(new AgentError({ plugin, reason: "launch() must return a command line or { command, env?, initialMessage? }" }))
  }
  return Effect.succeed({
    command: launch.command,
    env: (launch.env ?? {}) as Record<string, string>,
    ...(typeof launch.initialMessage === "string" ? { initialMessage: launch.initialMessage } : {})
  })
}

export const agentFromPlugin = ({ manifest, component }: LoadedPlugin): AgentShape => {
  const name = manifest.name
  const launchWith = (method: string) => (context: Parameters<AgentShape["launch"]>[0]) =>
    callPlugin(name, component, has(component, method) ? method : "launch", context).pipe(
      Effect.mapError((error) => new AgentError({ plugin: name, reason: error.message })),
      Effect.flatMap((value) => toLaunch(name, value))
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
    activityFromScreen: sync<Activity | undefined>("activityFromScreen", undefined)
  }
}

export const workspaceFromPlugin = ({ manifest, component }: LoadedPlugin): WorkspaceShape => {
  const name = manifest.name
  const call = (operation: string, ...args: ReadonlyArray<unknown>) =>
    callPlugin(name, component, operation, ...args).pipe(
      Effect.mapError((error) => new WorkspaceError({ plugin: name, operation, reason: error.reason }))
    )
  const where = (project: ProjectConfig) => ({ projectPath: project.path, defaultBranch: project.defaultBranch, repo: project.repo })
  return {
    name,
    create: (spec) =>
      call("create", { ...where(spec.project), sessionId: spec.sessionId, branch: spec.branch, path: spec.path }).pipe(
        Effect.map((made) => {
          const ws = (made ?? {}) as { path?: unknown; createdBranch?: unknown }
          return {
            path: typeof ws.path === "string" ? ws.path : spec.path,
            branch: spec.branch,
            createdBranch: ws.createdBranch === true,
            warnings: []
          }
        })
      ),
    exists: (path) => (has(component, "exists") ? call("exists", path).pipe(Effect.map(Boolean), Effect.orElseSucceed(() => true)) : Effect.succeed(true)),
    hasBranch: (project, branch) => (has(component, "hasBranch") ? call("hasBranch", where(project), branch).pipe(Effect.map(Boolean)) : Effect.succeed(false)),
    unsavedWork: (project, path) =>
      has(component, "unsavedWork")
        ? call("unsavedWork", where(project), path).pipe(
          Effect.map((work) => ({ uncommitted: Number((work as { uncommitted?: number })?.uncommitted ?? 0), unpushed: Number((work as { unpushed?: number })?.unpushed ?? 0) }))
        )
        : Effect.succeed({ uncommitted: 0, unpushed: 0 }),
    rescue: (project, path, ref) => call("rescue", where(project), path, ref).pipe(Effect.map(String)),
    destroy: (project, path, options) => Effect.asVoid(call("destroy", { ...where(project), path, ...options }))
  }
}

const issueStateOf = (value: unknown): IssueState | undefined => {
  const state = value as { name?: unknown; completed?: unknown } | null | undefined
  return typeof state?.name === "string" ? { name: state.name, completed: state.completed === true } : undefined
}

export const trackerFromPlugin = ({ manifest, component }: LoadedPlugin): TrackerShape => {
  const call = (method: string, ...args: ReadonlyArray<unknown>) =>
    callPlugin(manifest.name, component, method, ...args).pipe(
      Effect.mapError((error) => new TrackerUnavailable({ tracker: manifest.name, reason: error.reason }))
    )
  return {
    name: manifest.name,
    namesBranches: component.namesBranches === true,
    getIssue: (issueId) =>
      call("getIssue", issueId).pipe(
        Effect.flatMap((found) => {
          const issue = found as Partial<Issue> | null | undefined
          if (issue === null || issue === undefined) return Effect.fail(new IssueNotFound({ issueId, where: manifest.name }))
          const state = issueStateOf(issue.state)
          return Effect.succeed({
            id: String(issue.id ?? issueId),
            title: String(issue.title ?? ""),
            body: String(issue.body ?? ""),
            labels: Array.isArray(issue.labels) ? issue.labels.map(String) : [],
            ...(typeof issue.url === "string" ? { url: issue.url } : {}),
            ...(typeof issue.branchName === "string" ? { branchName: issue.branchName } : {}),
            ...(state !== undefined ? { state } : {})
          })
        })
      ),
    ...(has(component, "issueStates")
      ? {
        issueStates: (issueIds: ReadonlyArray<string>) =>
          call("issueStates", issueIds).pipe(Effect.map((found) => {
            const entries = found instanceof Map ? [...found] : Object.entries((found ?? {}) as Record<string, unknown>)
            return new Map(entries.flatMap(([id, value]) => {
              const state = issueStateOf(value)
              return state === undefined ? [] : [[String(id), state] as const]
            }))
          }))
      }
      : {}),
    ...(has(component, "onSessionEvent") ? { onSessionEvent: (update: SessionUpdate) => Effect.asVoid(call("onSessionEvent", update)) } : {})
  }
}

export const scmFromPlugin = ({ manifest, component }: LoadedPlugin): ScmShape => {
  const call = (operation: string, ...args: ReadonlyArray<unknown>) =>
    callPlugin(manifest.name, component, operation, ...args).pipe(
      Effect.mapError((error) => new ScmError({ plugin: manifest.name, operation, reason: error.reason }))
    )
  return {
    name: manifest.name,
    observe: (branch) =>
      Effect.map(call("observe", branch), (view) => {
        const v = (view ?? {}) as Partial<PullRequestView>
        return {
          pr: v.pr ?? null,
          checks: v.checks ?? null,
          review: v.review ?? null,
          mergeable: v.mergeable ?? null,
          failingChecks: v.failingChecks ?? [],
          reviewComments: v.reviewComments ?? []
        }
      }),
    merge: (prNumber, method) => Effect.asVoid(call("merge", prNumber, method))
  }
}
