/** A session: one agent working one issue in its own workspace and terminal. The record on disk. */
import * as Schema from "effect/Schema"
import { ReportedState } from "./activity.ts"
import { RateLimit } from "./rate-limit.ts"

/**
 * Where a session is in its life. Spec values (`ready`, `idle`, `stuck`) completed as DESIGN.md says. `interrupted` and
 * `unwatched` are never written to a record: `interrupted` is how every list shows a `spawning` record whose spawning
 * process is gone (live.ts `shownStatus`), until orch undoes that spawn; `unwatched`, a live session whose project is
 * not in the config the running supervisor serves (live.ts `watchedView`).
 */
export const SessionStatus = Schema.Literals([
  "spawning",
  "interrupted",
  "unwatched",
  "working",
  "ready",
  "idle",
  "stuck",
  "needs_input",
  "rate_limited",
  "pr_open",
  "ci_failed",
  "review_pending",
  "changes_requested",
  "approved",
  "mergeable",
  "merged",
  "errored",
  "killed",
  "done",
  "exited"
])
export type SessionStatus = typeof SessionStatus.Type

/**
 * What the agent is doing right now. `unknown` when no probe could tell; `rate_limited` when its model provider
 * turned it away (a limit or an overload: src/domain/rate-limit.ts); `retrying` while it retries a request its
 * provider failed for another reason (a server error, the network), which it does by itself for a few minutes: not
 * working on its task, and nothing for orch or a person to do yet.
 */
export const Activity = Schema.Literals(["active", "ready", "idle", "blocked", "waiting_input", "rate_limited", "retrying", "exited", "unknown"])
export type Activity = typeof Activity.Type

export { asAgentGone, awaitsReview, ENDED_STATUSES, holdsASlot, isEnded, isLive } from "./live.ts"

/** A worker on a tracker's issue (not an orchestrator, not a task): the sessions a tracker can tell about. */
export const worksAnIssue = (record: Pick<SessionRecord, "role" | "task">): boolean => record.role === undefined && record.task === undefined

/** What the session works on, for people: `42`, or `task fix-the-login` for a task. */
export const workLabel = (record: Pick<SessionRecord, "issueId" | "task">): string => record.task === undefined ? record.issueId : `task ${record.issueId}`

/** What the repohost says of a PR's checks (check runs and commit statuses together). */
export const CheckState = Schema.Literals(["pending", "passing", "failing"])
export type CheckState = typeof CheckState.Type

/** What the repohost says of a PR's reviews. */
export const ReviewState = Schema.Literals(["pending", "approved", "changes_requested"])
export type ReviewState = typeof ReviewState.Type

export const RuntimeHandle = Schema.Struct({
  plugin: Schema.String,
  /** The runtime's own name for it: the tmux session name, a pty's id. */
  id: Schema.String,
  data: Schema.Record(Schema.String, Schema.Unknown)
})
export type RuntimeHandle = typeof RuntimeHandle.Type

export const PullRequest = Schema.Struct({
  number: Schema.Int,
  url: Schema.String,
  state: Schema.Literals(["open", "draft", "merged", "closed"])
})
export type PullRequest = typeof PullRequest.Type

/** A failing check on a session's PR, as told to the agent by the `ci-failed` reaction. */
export const FailingCheck = Schema.Struct({
  name: Schema.String,
  url: Schema.optionalKey(Schema.String),
  summary: Schema.optionalKey(Schema.String),
  /** The end of the check's log, where the host offers it. */
  log: Schema.optionalKey(Schema.String)
})
export type FailingCheck = typeof FailingCheck.Type

/** A reviewer's comment on a session's PR, as told to the agent by the `changes-requested` reaction. */
export const ReviewComment = Schema.Struct({
  author: Schema.String,
  /** The author is a bot (a linter, a review bot), not a person. */
  bot: Schema.optionalKey(Schema.Boolean),
  body: Schema.String,
  path: Schema.optionalKey(Schema.String),
  line: Schema.optionalKey(Schema.Int),
  url: Schema.optionalKey(Schema.String)
})
export type ReviewComment = typeof ReviewComment.Type

/**
 * What a spawn has made so far, written before each step, so a spawn killed half-way can be undone by the
 * next command. Removed when the spawn completes.
 */
export const SpawnJournal = Schema.Struct({
  /** The spawning process: while it runs, the spawn is under way; once it is gone, the spawn was interrupted. */
  pid: Schema.Int,
  /** That process's start time where the system tells it (process-liveness.ts), so a reused pid is not taken for it. */
  startTime: Schema.optionalKey(Schema.String),
  startedAt: Schema.String,
  workspace: Schema.optionalKey(Schema.String),
  createdBranch: Schema.optionalKey(Schema.Boolean),
  runtime: Schema.optionalKey(RuntimeHandle),
  /**
   * The session is whole and its `session.spawned` is owed to the event log, from this byte offset on: the journal
   * goes once the event is written (a spawn killed in between has it written by the next reconcile).
   */
  announce: Schema.optionalKey(Schema.Int)
})
export type SpawnJournal = typeof SpawnJournal.Type

/**
 * A kill under way, written before the kill stops anything: a kill cut short (its process gone) is finished by the
 * next reconcile. `announce`, once the record says killed: where in the event log `session.killed` belongs.
 */
export const KillJournal = Schema.Struct({
  pid: Schema.Int,
  startTime: Schema.optionalKey(Schema.String),
  at: Schema.String,
  announce: Schema.optionalKey(Schema.Int)
})
export type KillJournal = typeof KillJournal.Type

export const IssueSummary = Schema.Struct({
  title: Schema.String,
  url: Schema.optionalKey(Schema.String)
})

/**
 * A session started for a task written by a person (`orch spawn <project> --task "…"`), not for a tracker's issue:
 * its `issueId` is then the task's slug (the tail of its `feat/<slug>` branch), never an issue of any tracker.
 */
export const TaskSummary = Schema.Struct({
  /** The task's first line, shortened; the whole text is in the session's prompt.md. */
  title: Schema.String
})
export type TaskSummary = typeof TaskSummary.Type

/**
 * The agent's own last word on its activity: a hook event or a report (`orch report`). The activity rule
 * (actors/rules/activity-rule.ts) weighs the screen against it; docs/supervisor.md says how.
 */
export const AgentWord = Schema.Struct({
  by: Schema.Literals(["hook", "report"]),
  activity: Activity,
  /** When it was said (ISO). */
  at: Schema.String,
  /** What a report stated (`done` is activity `ready`). */
  report: Schema.optionalKey(ReportedState),
  note: Schema.optionalKey(Schema.String),
  /** What the agent showed when its provider turned it away (activity `rate_limited`). */
  limit: Schema.optionalKey(Schema.String),
  /** A report the screen has since contradicted (new output, another screen): the screen decides again. */
  overruled: Schema.optionalKey(Schema.Boolean)
})
export type AgentWord = typeof AgentWord.Type

export const SessionRecord = Schema.Struct({
  sessionId: Schema.String,
  /** `orchestrator` for a project's orchestrator session (`orch start`); absent for workers. */
  role: Schema.optionalKey(Schema.Literal("orchestrator")),
  projectId: Schema.String,
  issueId: Schema.String,
  status: SessionStatus,
  activity: Activity,
  branch: Schema.String,
  /** The host the session runs on (a name in the config's `hosts`); absent: this machine, `local`. */
  host: Schema.optionalKey(Schema.String),
  workspacePath: Schema.String,
  runtime: Schema.NullOr(RuntimeHandle),
  agent: Schema.Struct({
    plugin: Schema.String,
    /** The agent's own conversation id, for resuming it (Claude Code's --session-id). */
    conversationId: Schema.optionalKey(Schema.String)
  }),
  pr: Schema.NullOr(PullRequest),
  issue: Schema.optionalKey(IssueSummary),
  /** Present when the session works a task rather than an issue (see TaskSummary). */
  task: Schema.optionalKey(TaskSummary),
  /** The queue priority it was started from (admission); absent: 0. Its PR's place in a merge train follows it. */
  priority: Schema.optionalKey(Schema.Int),
  /** The config file the session was spawned under: commands naming the session find its project there from any directory. */
  configPath: Schema.optionalKey(Schema.String),
  /** What ending the session needs of its project, kept for when no config has the project any more (recorded-project.ts). */
  project: Schema.optionalKey(Schema.Struct({
    key: Schema.String,
    path: Schema.String,
    repo: Schema.String,
    defaultBranch: Schema.String,
    runtime: Schema.String,
    workspace: Schema.String
  })),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  /** When the current activity began (ISO); drives ready → idle and stuck. */
  activitySince: Schema.optionalKey(Schema.String),
  /** The agent's own last word on its activity (hooks, `orch report`). */
  said: Schema.optionalKey(AgentWord),
  /** Bytes of the session's activity.jsonl already folded into this record: a new supervisor reads on from there. */
  signalOffset: Schema.optionalKey(Schema.Int),
  /** Probes in a row that found the runtime gone; the session is declared exited only after several. */
  deadProbes: Schema.optionalKey(Schema.Int),
  /** What the agent last printed, as one line (secrets redacted), read when it was found ended; while it stays so. */
  exitNote: Schema.optionalKey(Schema.String),
  /** What the repohost said about the PR's checks, review and mergeability (see actors/rules/lifecycle.ts). */
  checks: Schema.optionalKey(Schema.NullOr(CheckState)),
  review: Schema.optionalKey(Schema.NullOr(ReviewState)),
  mergeable: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  failingChecks: Schema.optionalKey(Schema.Array(FailingCheck)),
  reviewComments: Schema.optionalKey(Schema.Array(ReviewComment)),
  /** Per reaction key: attempts made and when the condition first triggered; survives restarts. */
  reactions: Schema.optionalKey(Schema.Record(
    Schema.String,
    Schema.Struct({
      attempts: Schema.Int,
      firstTriggeredAt: Schema.String,
      escalated: Schema.optionalKey(Schema.Boolean)
    })
  )),
  /** While the agent is turned away by its model provider, and across the tries to continue (see RateLimit). */
  rateLimit: Schema.optionalKey(RateLimit),
  /** When orch released the session's terminal and workspace (kill, cleanup). */
  endedAt: Schema.optionalKey(Schema.String),
  /** Where unsaved work went when the workspace was removed. */
  rescueRef: Schema.optionalKey(Schema.String),
  spawn: Schema.optionalKey(SpawnJournal),
  killing: Schema.optionalKey(KillJournal)
})
export type SessionRecord = typeof SessionRecord.Type

/** The host a record's session runs on: `local` when the record names none (records from before hosts). */
export const hostOf = (record: Pick<SessionRecord, "host">): string => record.host ?? "local"
