/** The prompt a worker agent starts with: its role and rules (system part) and its issue (task). */
import type { ProjectConfig } from "../config/schema.ts"
import type { Issue } from "../plugins/tracker/Tracker.ts"

export interface WorkerPromptInput {
  readonly project: ProjectConfig
  readonly sessionId: string
  readonly issueId: string
  readonly branch: string
  /** Undefined when the tracker could not be asked, keeps no issues, or the session is for a task. */
  readonly issue: Issue | undefined
  /** With no `issue`: the tracker keeps no issues (`tracker: none`), rather than could not be asked. */
  readonly untracked?: boolean
  /** The task a person wrote, for a session spawned with `--task`; the issue id is then its slug. */
  readonly task?: string
  /** The contents of `agentRulesFile`, when there is one. */
  readonly rulesFile: string | undefined
}

export interface WorkerPrompt {
  readonly system: string
  readonly task: string
  /** Both parts, as written to prompt.md. */
  readonly full: string
}

/** Whether the project follows pull requests on a repohost (not `scm: none`). */
const hasRepohost = (project: ProjectConfig) => project.scm !== undefined && project.scm.plugin !== "none"

const taskPart = (input: WorkerPromptInput): string => {
  const { project, issue } = input
  if (input.task !== undefined) return `Your task (from a person, not from an issue tracker):\n\n${input.task.trim()}`
  if (issue === undefined) {
    return input.untracked === true
      ? `Work on issue ${input.issueId} of ${project.repo}. (The project has no issue tracker orch can read, so there is no issue text here.)`
      : `Work on issue ${input.issueId} of ${project.repo}. (Its text could not be fetched; look it up if you can.)`
  }
  return [
    // Repohost issues are numbers of the repository; other trackers' ids (ENG-123) stand alone.
    `Work on issue ${/^\d+$/.test(issue.id) ? `#${issue.id} of ${project.repo}` : issue.id}: ${issue.title}`,
    ...(issue.url ? [issue.url] : []),
    ...(issue.labels.length > 0 ? [`Labels: ${issue.labels.join(", ")}`] : []),
    "",
    issue.body.trim() || "(The issue has no description.)"
  ].join("\n")
}

export const buildWorkerPrompt = (input: WorkerPromptInput): WorkerPrompt => {
  const { project } = input
  const rules = [project.agentRules?.trim(), input.rulesFile?.trim()].filter((part): part is string => !!part)
  const what = input.task !== undefined ? "one task" : "one issue"
  const system = [
    `You are a coding agent working on ${what} of ${project.repo}, in session ${input.sessionId} managed by orch.`,
    "",
    "## How you work",
    `- Your working copy is a git worktree on branch \`${input.branch}\`, made from \`${project.defaultBranch}\`. Stay on this branch.`,
    "- Make focused commits with clear messages. Run the project's tests before you push.",
    ...(hasRepohost(project)
      ? [
        `- When the work is ready, push the branch and open a pull request against \`${project.defaultBranch}\` that says which ${
          input.task !== undefined ? "task it does" : "issue it resolves"
        }.`,
        "- orch watches your pull request. It will send you CI failures (the failing checks, with links) and review comments as messages here; fix what they report and push again."
      ]
      : ["- The project has no repohost: when the work is ready, leave it committed on your branch and say so; there is no pull request to open."]),
    "- If you are blocked or need a decision from a person, say so plainly and stop; orch notifies them.",
    ...(rules.length > 0 ? ["", "## Project rules", ...rules] : [])
  ].join("\n")
  const task = taskPart(input)
  return { system, task, full: `${system}\n\n## Your task\n\n${task}\n` }
}
