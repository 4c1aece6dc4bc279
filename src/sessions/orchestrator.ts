/**
 * A project's orchestrator session (`orch start`): `<prefix>-orchestrator`, an agent in a worktree on branch
 * `orchestrator/<prefix>` with the orchestrator prompt and the `orch` command on its PATH. Started once; a live
 * one is reused, a dead one is relaunched in place.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"
import type { SessionRecord } from "../domain/session.ts"
import { Agent } from "../plugins/agent/Agent.ts"
import { removeLeftEnvFiles } from "../plugins/runtime/launch-env.ts"
import { Runtime } from "../plugins/runtime/Runtime.ts"
import { Workspace } from "../plugins/workspace/Workspace.ts"
import { buildOrchestratorPrompt } from "../prompts/orchestrator.ts"
import { EventLog } from "../store/EventLog.ts"
import { attempt, writeFileAtomic } from "../store/files.ts"
import { SessionStore } from "../store/SessionStore.ts"
import { agentEnvironment } from "./agent-env.ts"
import { makeAgentFiles } from "./agent-files.ts"
import { agentContext, checkAgentProgram, waitUntilReady, watchStart } from "./agent-start.ts"
import { nowIso } from "./record-update.ts"

export class OrchestratorNotReady extends Schema.TaggedError<OrchestratorNotReady>()("OrchestratorNotReady", { reason: Schema.String }) {
  override get message() {
    return `the orchestrator agent did not start: ${this.reason}`
  }
}

export const orchestratorSessionId = (project: ProjectConfig) => `${project.sessionPrefix}-orchestrator`

/** A directory holding an `orch` that runs this very orch, for the orchestrator agent's PATH. */
const orchShim = (root: string, cliPath: string) =>
  attempt(join(root, "bin"), () => {
    const shim = join(root, "bin", "orch")
    mkdirSync(dirname(shim), { recursive: true })
    writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} "$@"\n`)
    chmodSync(shim, 0o755)
    return dirname(shim)
  })

export const startOrchestrator = Effect.fn("Sessions.startOrchestrator")(function*(
  config: OrchestratorConfig,
  project: ProjectConfig,
  cliPath: string
) {
  const store = yield* SessionStore
  const events = yield* EventLog
  const runtime = yield* Runtime
  const agent = yield* Agent
  const workspace = yield* Workspace
  const sessionId = orchestratorSessionId(project)
  const existing = yield* store.read(sessionId).pipe(Effect.map(Option.some), Effect.catchTag("SessionNotFound", () => Effect.succeedNone))
  if (existing._tag === "Some" && existing.value.runtime !== null) {
    const state = (yield* runtime.probe([existing.value.runtime])).get(existing.value.runtime.id)
    if (state?._tag === "Alive") return { record: existing.value, reused: true }
    yield* runtime.destroy(existing.value.runtime)
  } else {
    // A start killed after it made the terminal, before its record: that terminal is ended (its worktree, and what
    // the agent wrote there, is used again below), and an environment file its shell never read is removed.
    yield* runtime.destroy({ plugin: runtime.name, id: sessionId, data: {} })
    yield* attempt(tmpdir(), () => removeLeftEnvFiles(sessionId, store.paths.worktree(project.id, sessionId)))
  }
  yield* checkAgentProgram(agent, project).pipe(Effect.mapError((reason) => new OrchestratorNotReady({ reason })))
  const now = yield* nowIso
  const base: SessionRecord = existing._tag === "Some" ? existing.value : {
    sessionId,
    role: "orchestrator",
    projectId: project.id,
    issueId: "orchestrator",
    ...(config.configPath !== undefined ? { configPath: config.configPath } : {}),
    status: "spawning",
    activity: "unknown",
    branch: `orchestrator/${project.sessionPrefix}`,
    workspacePath: store.paths.worktree(project.id, sessionId),
    runtime: null,
    agent: { plugin: agent.name, conversationId: crypto.randomUUID() },
    pr: null,
    createdAt: now,
    updatedAt: now
  }
  if (!(yield* workspace.exists(base.workspacePath))) {
    yield* workspace.create({ project, sessionId, branch: base.branch, path: base.workspacePath })
  }
  const shimDir = yield* orchShim(store.paths.root, cliPath)
  const prompt = buildOrchestratorPrompt(config, project, join(shimDir, "orch"))
  const context = agentContext(store, project, base, "Read `orch status --json`, then plan the work on the open issues and start it.")
  yield* writeFileAtomic(context.promptFile, `${prompt}\n`)
  yield* writeFileAtomic(context.systemPromptFile, prompt)
  const launch = yield* (existing._tag === "Some" ? agent.resume(context) : agent.launch(context))
  yield* makeAgentFiles(workspace, store.paths, store.paths, base, launch.files ?? [])
  const environment = agentEnvironment(project, context, {
    ...launch.env,
    ...(config.configPath !== undefined ? { ORCH_CONFIG_PATH: config.configPath } : {}),
    PATH: `${shimDir}:${process.env.PATH ?? ""}`
  })
  const handle = yield* runtime.create({ sessionId, workingDir: base.workspacePath, command: launch.command, ...environment })
  const notReady = (error: string | { readonly message: string }) => new OrchestratorNotReady({ reason: typeof error === "string" ? error : error.message })
  // An agent that does not stay up is not reported as started: its terminal goes, the reason it printed is told.
  yield* (launch.initialMessage !== undefined && existing._tag === "None"
    ? waitUntilReady(runtime, agent, handle).pipe(Effect.andThen(runtime.send(handle, launch.initialMessage)))
    : watchStart(runtime, handle)).pipe(
      Effect.catch((error) =>
        Effect.flatMap(
          runtime.destroy(handle).pipe(
            Effect.as(""),
            Effect.catch((destroyError) => Effect.succeed(`; and its terminal session ${handle.id} could not be ended: ${destroyError.message}`))
          ),
          (left) => Effect.fail(notReady(`${typeof error === "string" ? error : error.message}${left}`))
        )
      )
    )
  const startedAt = yield* nowIso
  const record: SessionRecord = { ...base, status: "working", activity: "active", activitySince: startedAt, runtime: handle, updatedAt: startedAt }
  yield* store.write(record)
  yield* events.append({
    type: existing._tag === "Some" ? "session.restored" : "session.spawned",
    sessionId,
    projectId: project.id,
    issueId: "orchestrator",
    data: { role: "orchestrator" }
  })
  return { record, reused: false }
})
