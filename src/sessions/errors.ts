/** What session commands tell a user when they cannot do what was asked. */
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { didYouMean } from "../config/suggest.ts"

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {
  project: Schema.String,
  known: Schema.Array(Schema.String),
  /** The config file looked in, when it came from one. */
  configPath: Schema.optionalKey(Schema.String),
  /** A running supervisor looked, in the config it serves (not the one this directory would find). */
  bySupervisor: Schema.optionalKey(Schema.Boolean)
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    const projects = `projects: ${this.known.length > 0 ? this.known.join(", ") : "none"}`
    const file = this.configPath === undefined ? "" : ` ${this.configPath}`
    if (this.bySupervisor !== true) return `no project "${this.project}" in the config${file} (${projects})`
    const where = this.configPath === undefined ? "its config" : this.configPath
    return `no project "${this.project}" in the config the running supervisor serves${file} (${projects}); add the project to ${where}: ` +
      "the supervisor applies a saved change at once, without a restart"
  }

  /** The same, as the running supervisor answers it. */
  asSupervisorAnswer(): ProjectNotFound {
    return new ProjectNotFound({
      project: this.project,
      known: this.known,
      ...(this.configPath !== undefined ? { configPath: this.configPath } : {}),
      bySupervisor: true
    })
  }
}

/** A command that can leave its project out was run without one, and the config does not have exactly one. */
export class ProjectNotGiven extends Schema.TaggedError<ProjectNotGiven>()("ProjectNotGiven", {
  command: Schema.String,
  known: Schema.Array(Schema.String),
  configPath: Schema.optionalKey(Schema.String)
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    const file = this.configPath === undefined ? "the config" : this.configPath
    return this.known.length === 0
      ? `${file} has no project: add one (\`orch init\` in its repository), then run \`${this.command}\` again`
      : `say which project: \`${this.command} <project>\` (${file} has ${this.known.length}: ${this.known.join(", ")})`
  }
}

export class SessionNotRunning extends Schema.TaggedError<SessionNotRunning>()("SessionNotRunning", {
  sessionId: Schema.String,
  state: Schema.String
}) {
  override get message() {
    return `session ${this.sessionId} is not running (${this.state}); \`orch session restore ${this.sessionId}\` starts it again`
  }
}

export class SessionRunning extends Schema.TaggedError<SessionRunning>()("SessionRunning", {
  sessionId: Schema.String
}) {
  override get message() {
    return `session ${this.sessionId} is running; there is nothing to restore`
  }
}

/** A restore started the agent again, and it did not stay up (or could not be started at all). */
export class RestoreFailed extends Schema.TaggedError<RestoreFailed>()("RestoreFailed", {
  sessionId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `session ${this.sessionId} was not restored: ${this.reason}`
  }
}

/** `orch spawn` of an issue a session is still working on: one issue, one session. */
export class IssueHasSession extends Schema.TaggedError<IssueHasSession>()("IssueHasSession", {
  issueId: Schema.String,
  sessionId: Schema.String,
  /** That session is still being spawned (it may yet fail). */
  spawning: Schema.optionalKey(Schema.Boolean)
}) {
  override get message() {
    return this.spawning === true
      ? `issue ${this.issueId} is being started as ${this.sessionId} right now`
      : `issue ${this.issueId} already has a live session ${this.sessionId}: \`orch send ${this.sessionId} …\` or \`orch attach ${this.sessionId}\``
  }
}

/** Queued work for an issue the tracker says is over: it is not started. */
export class IssueClosed extends Schema.TaggedError<IssueClosed>()("IssueClosed", {
  issueId: Schema.String,
  state: Schema.String
}) {
  override get message() {
    return `issue ${this.issueId} is ${this.state} in its tracker, so it was not started`
  }
}

/** A spawn failed at `step`; everything it had made was undone. */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>()("SpawnFailed", {
  project: Schema.String,
  /** The issue id, or a task's slug. */
  issueId: Schema.String,
  task: Schema.optionalKey(Schema.Boolean),
  step: Schema.String,
  reason: Schema.String,
  /** The host it ran on, when not this machine. */
  host: Schema.optionalKey(Schema.String),
  /** The session's branch cannot be used (refused by git, or checked out elsewhere): the work's own problem, wherever it runs. */
  branchUnusable: Schema.optionalKey(Schema.Boolean),
  /** What undoing the spawn could not undo ("could not remove the worktree …: why"). */
  leftBehind: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  override get message() {
    const on = this.host !== undefined ? ` on host ${this.host}` : ""
    const failed = `spawn of ${this.project} ${this.task === true ? "task" : "issue"} ${this.issueId}${on} failed while ${this.step}`
    const left = this.leftBehind ?? []
    return left.length === 0 ? `${failed} (nothing was left behind): ${this.reason}` : `${failed}: ${this.reason}; and it ${left.join("; and it ")}`
  }
}

/** `--task` (or the file of `--task-file`) had no words in it. */
export class EmptyTask extends Schema.TaggedError<EmptyTask>()("EmptyTask", {}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return "the task is empty: say what the agent should do in --task \"…\" or in the file of --task-file"
  }
}

/** A merge asked for by a person was not done: the PR is not open, green, approved and free of conflicts. */
export class MergeRefused extends Schema.TaggedError<MergeRefused>()("MergeRefused", {
  sessionId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.sessionId}: not merged: ${this.reason}`
  }
}

/** `orch session rm` would lose something or cut a live session short, so it removed nothing. */
export class RemoveRefused extends Schema.TaggedError<RemoveRefused>()("RemoveRefused", {
  sessionId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `session ${this.sessionId} was not removed: ${this.reason}`
  }
}

/** No host can take a new session: every host's figures or reason, in one sentence. */
export class NoHostFits extends Schema.TaggedError<NoHostFits>()("NoHostFits", {
  reason: Schema.String
}) {
  override get message() {
    return `${this.reason}; \`orch hosts\` shows each host's figures and errors`
  }
}

/** `--host` names no host of the config. */
export class UnknownHost extends Schema.TaggedError<UnknownHost>()("UnknownHost", {
  host: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `${
      this.host.trim() === "" ? "--host was given an empty name" : `there is no host named ${this.host}${didYouMean(this.host, this.known)}`
    }; the project's hosts are ${this.known.join(", ")}: name one of them with --host, or add it under hosts: in the config`
  }
}

/** A kill stopped the agent but could not save and remove its worktree: the worktree and its work are kept. */
export class KillIncomplete extends Schema.TaggedError<KillIncomplete>()("KillIncomplete", {
  sessionId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.sessionId}: its agent is stopped, but its worktree could not be saved and removed (${this.reason}); fix that and run \`orch session kill ${this.sessionId}\` again, or \`orch session restore ${this.sessionId}\` to go on working in it`
  }
}

/** The session's host cannot be reached: nothing there can be ended or saved now. */
export class HostUnreachable extends Schema.TaggedError<HostUnreachable>()("HostUnreachable", {
  sessionId: Schema.String,
  host: Schema.String,
  reason: Schema.String,
  /** What was asked of the session: `orch <command> <session>`. */
  command: Schema.String
}) {
  override get message() {
    return `${this.sessionId} runs on host ${this.host}, which cannot be reached, and nothing was done to it: run \`orch ${this.command} ${this.sessionId}\` again once \`orch hosts\` shows ${this.host} up; last: ${this.reason}`
  }
}

export class NotQueued extends Schema.TaggedError<NotQueued>()("NotQueued", { ref: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `nothing in the queue is ${this.ref} (an entry id like q-3, or an issue); \`orch queue ls\` lists what is queued`
  }
}

/** `orch queue rm` of an entry that is being started now: its session is about to exist. */
export class QueueEntryStarting extends Schema.TaggedError<QueueEntryStarting>()("QueueEntryStarting", {
  entryId: Schema.String,
  sessionId: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override get message() {
    return `${this.entryId} is being started as ${this.sessionId} right now, so it was not removed; \`orch session kill ${this.sessionId}\` ends it once it runs`
  }
}
