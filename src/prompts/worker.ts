/** The prompt a worker agent starts with: its role and rules (system part) and its issue (task). */
import type { ProjectConfig } from "../config/schema.ts"
import type { Issue } from "../plugins/tracker/Tracker.ts"

export interface WorkerPromptInput {
  readonly project: ProjectConfig
  readonly sessionId: string
  readonly issueId: string
  readonly branch: string
  /** Undefined when the tracker could not be asked. */
  readonly issue: Issue | undefined
  /** The contents of `agentRulesFile`, when there is one. */
  readonly rulesFile: string | undefined
}

export interface WorkerPrompt {
  readonly system: string
  readonly task: string
  /** Both parts, as written to prompt.md. */
  readonly full: string
}

export const buildWorkerPrompt = (input: WorkerPromptInput): WorkerPrompt => {
  const { project, issue } = input
  const rules = [project.agentRules?.trim(), input.rulesFile?.trim()].filter((part): part is string => !!part)
  const system = [
    `You are a coding agent working on one issue of ${project.repo}, in session ${input.sessionId} managed by orch.`,
    "",
    "## How you work",
    `- Your working copy is a git worktree on branch \`${input.branch}\`, made from \`${project.defaultBranch}\`. Stay on this branch.`,
    "- Make focused commits with clear messages. Run the project's tests before you push.",
    `- When the work is ready, push the branch and open a pull request against \`${project.defaultBranch}\` that says which issue it resolves.`,
    "- orch watches your pull request. It will send you CI failures (the failing checks, with links) and review comments as messages here; fix what they report and push again.",
    "- If you are blocked or need a decision from a person, say so plainly and stop; orch notifies them.",
    ...(rules.length > 0 ? ["", "## Project rules", ...rules] : [])
  ].join("\n")
  const task = issue === undefined
    ? `Work on issue ${input.issueId} of ${project.repo}. (Its text could not be fetched; look it up if you can.)`
    : [
      // Repohost issues are numbers of the repository; other trackers' ids (ENG-123) stand alone.
      `Work on issue ${/^\d+$/.test(issue.id) ? `#${issue.id} of ${project.repo}` : issue.id}: ${issue.title}`,
      ...(issue.url ? [issue.url] : []),
      ...(issue.labels.length > 0 ? [`Labels: ${issue.labels.join(", ")}`] : []),
      "",
      issue.body.trim() || "(The issue has no description.)"
    ].join("\n")
  return { system, task, full: `${system}\n\n## Your task\n\n${task}\n` }
}
