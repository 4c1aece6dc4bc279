/** The prompt of a project's orchestrator session: the agent that plans and drives the worker sessions. */
import { projectReactions } from "../config/normalize.ts"
import type { OrchestratorConfig, ProjectConfig } from "../config/schema.ts"

/** Where workers can run, when other machines are configured: the hosts, and how to choose or look at them. */
const hostsSection = (config: OrchestratorConfig, project: ProjectConfig): ReadonlyArray<string> => {
  const names = Object.keys(config.hosts)
  if (names.length === 0) return []
  const usable = ["local", ...names].filter((name) => project.hosts === undefined || project.hosts.includes(name))
  const describe = (name: string) => {
    const spec = config.hosts[name]
    if (spec === undefined) return `- \`local\`: this machine.`
    const traits = [
      ...(spec.labels !== undefined && spec.labels.length > 0 ? [`labels ${spec.labels.join(", ")}`] : []),
      ...(spec.maxSessions !== undefined ? [`at most ${spec.maxSessions} sessions`] : [])
    ]
    return `- \`${name}\`${traits.length > 0 ? `: ${traits.join("; ")}` : ""}.`
  }
  return [
    "## Hosts",
    `Workers may run on these machines${project.hostLabels !== undefined ? ` (this project needs the labels ${project.hostLabels.join(", ")})` : ""}:`,
    ...usable.map(describe),
    "orch places each new worker on the host with the most headroom; `orch spawn ... --host <name>` chooses one.",
    "`orch hosts` shows each host's free memory, load, sessions and whether it answers; the HOST column of `orch status` (`host` in `--json`) says where each worker runs.",
    "A host that stops answering leaves its workers `unknown`: do not start them again elsewhere; orch picks them up when the host is back.",
    ""
  ]
}

/**
 * `orch` is the command the agent runs orch by: an absolute path, because agents' shells do not keep the PATH
 * they were started with (Claude Code's Bash tool takes the login shell's PATH).
 */
export const buildOrchestratorPrompt = (config: OrchestratorConfig, project: ProjectConfig, orch = "orch"): string => {
  const reactions = Object.entries(projectReactions(config, project))
    .map(([key, r]) =>
      `- ${key}: ${r.auto ? "" : "(off) "}${r.action}${r.priority ? ` (${r.priority})` : ""}${r.retries !== undefined ? `, ${r.retries} retries` : ""}${
        r.escalateAfter !== undefined ? `, escalates after ${r.escalateAfter}` : ""
      }${r.threshold !== undefined ? `, after ${r.threshold}` : ""}`
    )
  return [
    `You are the orchestrator of ${project.name} (${project.repo}), managed by orch. You do not write code yourself:`,
    "you decide which issues to work on, start a worker session for each, watch them, and help them when they are stuck.",
    "",
    "## Project",
    `- Repository: ${project.repo}, default branch \`${project.defaultBranch}\`, local path ${project.path}`,
    `- Worker sessions are named \`${project.sessionPrefix}-<n>\`; each works one issue on branch \`feat/<issue>\` in its own worktree.`,
    `- Agent: ${project.agent}; runtime: ${project.runtime}; workspace: ${project.workspace}.`,
    "",
    "## The orch commands you use (run them in your shell)",
    ...(orch !== "orch" ? [`orch is \`${orch}\`: write that path wherever these commands say \`orch\`.`] : []),
    `- \`orch status --json\`: every session with its status, activity and PR. Read this before deciding anything.`,
    `- \`orch spawn ${project.key} <issue>\`: start a worker on one issue. \`orch batch-spawn ${project.key} <issue>...\` for several.`,
    `- \`orch spawn ${project.key} --task "<what to do>"\`: start a worker on a task that has no issue (its branch is \`feat/<the task's first words>\`).`,
    "- `orch send <session> <message>`: tell a worker something (an answer, a hint, a change of plan).",
    "- `orch session ls`: sessions with the live state of their terminals; `orch session kill <session>` stops one;",
    "  `orch session restore <session>` restarts a dead one; `orch session cleanup` ends finished ones.",
    "- `orch notifications --unread`: what orch told people.",
    "",
    ...hostsSection(config, project),
    "## What orch does by itself (do not duplicate it)",
    ...reactions,
    "",
    "## How to work",
    "- Do not start a second session for an issue that has a live one.",
    "- Keep the number of concurrent workers reasonable for the machine; prefer finishing work over starting more.",
    "- When a worker needs a decision you cannot make, say so plainly: a person reads the notifications.",
    ...(project.orchestratorRules?.trim() ? ["", "## Project rules", project.orchestratorRules.trim()] : [])
  ].join("\n")
}
