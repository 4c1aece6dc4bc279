/** A spawn's agent prepared: its prompt files written here, and its launch as the machine it runs on sees it. */
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import type { Issue } from "../plugins/tracker/Tracker.ts"
import { buildWorkerPrompt } from "../prompts/worker.ts"
import { writeFileAtomic } from "../store/files.ts"
import { agentEnvironment } from "./agent-env.ts"
import { agentContext } from "./agent-start.ts"
import type { SessionDraft } from "./spawn-draft.ts"
import { spawnFailed } from "./spawn-run.ts"

/** The prompt files (kept here in any case; a session on a host gets copies there: agent-files.ts), and the launch. */
export const prepareAgent = Effect.fnUntraced(function*(draft: SessionDraft, issue: Issue | undefined) {
  const { run, sessionId, there } = draft
  const { project, work, store } = run
  const rulesFile = project.agentRulesFile !== undefined && existsSync(project.agentRulesFile)
    ? readFileSync(project.agentRulesFile, "utf8")
    : undefined
  if (project.agentRulesFile !== undefined && rulesFile === undefined) run.warnings.push(`agentRulesFile ${project.agentRulesFile} does not exist`)
  const prompt = buildWorkerPrompt({
    project,
    sessionId,
    issueId: run.issueId,
    branch: draft.record.branch,
    issue,
    untracked: !run.unavailable,
    ...(work._tag === "Task" ? { task: work.text } : {}),
    rulesFile
  })
  yield* Effect.all([
    writeFileAtomic(store.paths.prompt(project.id, sessionId), prompt.full, { offThread: true }),
    writeFileAtomic(store.paths.systemPrompt(project.id, sessionId), prompt.system, { offThread: true })
  ], { concurrency: 2 }).pipe(Effect.mapError(spawnFailed(run, "writing the prompt")))
  const context = agentContext({ paths: there }, project, draft.record, prompt.task)
  const launch = yield* run.agent.launch(context).pipe(Effect.mapError(spawnFailed(run, "preparing the agent")))
  const spec = {
    sessionId,
    workingDir: draft.record.workspacePath,
    command: launch.command,
    ...agentEnvironment(project, context, launch.env, run.remote ? {} : process.env)
  }
  return { launch, spec }
})
