/**
 * A built-in agent as a plugin module's component: the Effect agent behind Promise methods. The context a caller
 * passes is decoded (the strings an agent uses, and a `project` that looks like a project's config).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ProjectConfig } from "../../config/schema.ts"
import { type AgentContext, AgentError, type AgentLaunch, type AgentShape } from "../agent/Agent.ts"
import type { Activity, AgentComponent } from "../contract/agent.ts"
import { decodeWith } from "../contract/common.ts"
import { applyEditsLocally } from "../workspace/file-edits.ts"

const isProject = (value: unknown): value is ProjectConfig => {
  const project = value as Partial<Record<keyof ProjectConfig, unknown>> | null
  return typeof project === "object" && project !== null &&
    ["key", "id", "path", "repo", "defaultBranch"].every((key) => typeof project[key as keyof ProjectConfig] === "string")
}

/** A project's config as `loadConfig` gives it (checked for the keys that identify it). */
const Project = Schema.declare(isProject, { expected: "a project's config (from loadConfig: key, id, path, repo, defaultBranch)" })

const Context = Schema.Struct({
  sessionId: Schema.String,
  project: Project,
  issueId: Schema.String,
  branch: Schema.String,
  workspacePath: Schema.String,
  promptFile: Schema.String,
  systemPromptFile: Schema.String,
  task: Schema.String,
  activityFile: Schema.String,
  conversationId: Schema.String
})

/** The component a built-in agent module's `create` returns: every method; `launch` and `resume` answer with Promises. */
export interface BuiltinAgent extends AgentComponent {
  readonly name: string
  launch(context: AgentContext): Promise<AgentLaunch>
  resume(context: AgentContext): Promise<AgentLaunch>
  isReadyForInput(screen: string): boolean
  activityFromScreen(screen: string): Activity | undefined
}

export const agentComponent = (shape: AgentShape): BuiltinAgent => {
  const context = (value: unknown) =>
    Effect.mapError(decodeWith(Context)(value), (problem) => new AgentError({ plugin: shape.name, reason: `the context is not valid: ${problem}` }))
  // A module's caller starts the agent on this machine: the files it needs are made here, as its launch's answer says.
  const start = (how: (context: AgentContext) => Effect.Effect<AgentLaunch, AgentError>) => (value: AgentContext) =>
    Effect.runPromise(
      Effect.flatMap(context(value), how).pipe(
        Effect.tap((launch) =>
          applyEditsLocally(launch.files ?? []).pipe(
            Effect.mapError((reason) => new AgentError({ plugin: shape.name, reason: `cannot prepare its files: ${reason}` }))
          )
        ),
        Effect.map(({ files: _files, ...launch }): AgentLaunch => launch)
      )
    )
  return {
    name: shape.name,
    launch: start(shape.launch),
    resume: start(shape.resume),
    isReadyForInput: (screen) => shape.isReadyForInput(String(screen)),
    activityFromScreen: (screen) => shape.activityFromScreen(String(screen))
  }
}
