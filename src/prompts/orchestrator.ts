/** The prompt of a project's orchestrator session: the agent that plans and drives the worker sessions. */
import { projectReactions } from "../config/normalize.ts"
import type { OrchestratorConfig, ProjectConfig, ReactionConfig } from "../config/schema.ts"

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

/** What orch does by itself about a predicted conflict, so the orchestrator does not do it again. */
const conflictReaction = (reaction: ReactionConfig): string =>
  !reaction.auto
    ? "orch tells nobody about them by itself (the `predicted-conflict` reaction is off): telling the workers is yours."
    : reaction.action === "send-to-agent"
    ? "orch already tells the worker whose PR would merge later (the later-opened PR, or the one without a PR) whom it collides with and the files."
    : "orch sends a notification about each new one (`orch notifications --unread`); telling the workers is yours."

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
    "## Predicted conflicts",
    "orch compares every live worker's branch with the others and with the default branch as they commit:",
    "`orch status` has a line per pair (`conflict predicted: <a> ↔ <b> in <files>`, or `overlap: …` when they change the",
    "same files but still merge cleanly), and `orch status --json` a `conflicts` list on each session (`with`, `kind`, `files`).",
    `${conflictReaction(projectReactions(config, project)["predicted-conflict"])}`,
    "Use them to decide the order work lands in: let one PR merge first, tell the other to wait for it and then rebase;",
    "do not start a new worker on files two workers already collide on.",
    "",
    "## How to work",
    "- Do not start a second session for an issue that has a live one.",
    "- Keep the number of concurrent workers reasonable for the machine; prefer finishing work over starting more.",
    "- When a worker needs a decision you cannot make, say so plainly: a person reads the notifications.",
    ...(project.orchestratorRules?.trim() ? ["", "## Project rules", project.orchestratorRules.trim()] : [])
  ].join("\n")
}
