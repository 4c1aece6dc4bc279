/** The defaults of the spec that are not a single field's default: reactions and notification routing. */
import type { EventPriority, ReactionConfig, ReactionKey } from "./schema.ts"

/** The `predicted-conflict` reaction's message unless a config gives its own: for a conflict with another branch. */
export const PREDICTED_CONFLICT_MESSAGE =
  "orch predicts that your branch will not merge cleanly with another branch once either merges. Keep your changes to these files small, and when the other one has merged, rebase on the default branch, resolve the conflicts and push."
/** What the default message says instead when the conflict is with the default branch as it is now. */
export const DEFAULT_BRANCH_CONFLICT_MESSAGE =
  "orch finds that your branch no longer merges cleanly with the default branch as it is now. Rebase on it (git fetch origin, then rebase on origin's default branch), resolve the conflicts, run the checks and push."

export const DEFAULT_NOTIFICATION_ROUTING: Readonly<Record<EventPriority, ReadonlyArray<string>>> = {
  urgent: ["desktop", "hosted"],
  action: ["desktop", "hosted"],
  warning: ["hosted"],
  info: ["hosted"]
}

export const DEFAULT_REACTIONS: Readonly<Record<ReactionKey, ReactionConfig>> = {
  "ci-failed": {
    auto: true,
    action: "send-to-agent",
    retries: 2,
    escalateAfter: 2,
    message: "CI is failing on your pull request. Inspect the failing checks, fix the issues, and push."
  },
  "changes-requested": {
    auto: true,
    action: "send-to-agent",
    escalateAfter: "30m",
    message: "A reviewer requested changes on your pull request. Address every review comment, then push."
  },
  "merge-conflicts": {
    auto: true,
    action: "send-to-agent",
    escalateAfter: "15m",
    message: "Your branch has merge conflicts. Rebase on the default branch, resolve the conflicts, and push."
  },
  "approved-and-green": {
    auto: false,
    action: "notify",
    priority: "action",
    message: "The pull request is approved and its checks are green: ready to merge."
  },
  "agent-stuck": {
    auto: true,
    action: "notify",
    priority: "urgent",
    threshold: "10m",
    message: "The agent has shown no activity for a while and looks stuck."
  },
  "agent-needs-input": {
    auto: true,
    action: "notify",
    priority: "urgent",
    message: "The agent is waiting for a person's input."
  },
  "agent-exited": {
    auto: true,
    action: "notify",
    priority: "urgent",
    message: "The agent process exited."
  },
  "agent-rate-limited": {
    auto: true,
    action: "notify",
    priority: "action",
    message: "The agent's model provider turned it away (a rate or usage limit, or an overload); orch tells it to continue once that has passed.",
    continueMessage: "Your model provider's limit has reset. Continue your task where you left off."
  },
  "all-complete": {
    auto: true,
    action: "notify",
    priority: "info",
    includeSummary: true,
    message: "Every session has finished."
  },
  "predicted-conflict": {
    auto: true,
    action: "send-to-agent",
    message: PREDICTED_CONFLICT_MESSAGE
  }
}
