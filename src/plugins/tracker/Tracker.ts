/** The tracker slot: where a session's issue comes from. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type { OrchEvent } from "../../domain/event.ts"
import type { PullRequest } from "../../domain/session.ts"

/** Where an issue is in the tracker's workflow; `completed` when its work is over (done or canceled). */
export interface IssueState {
  readonly name: string
  readonly completed: boolean
}

export interface Issue {
  readonly id: string
  readonly title: string
  readonly body: string
  readonly labels: ReadonlyArray<string>
  readonly url?: string
  /** The branch the tracker suggests for this issue's work (Linear's `branchName`). */
  readonly branchName?: string
  readonly state?: IssueState
}

/** What a tracker hears about a session's issue (see `onSessionEvent`). */
export interface SessionUpdate {
  readonly event: OrchEvent
  readonly issueId: string
  readonly sessionId: string
  readonly branch: string
  readonly pr: PullRequest | null
}

/** The tracker answered: there is no such issue. Spawning stops. */
export class IssueNotFound extends Schema.TaggedError<IssueNotFound>()("IssueNotFound", {
  issueId: Schema.String,
  where: Schema.String
}) {
  override get message() {
    return `issue ${this.issueId} not found in ${this.where}`
  }
}

/** The issue id cannot name an issue of this tracker. */
export class InvalidIssueId extends Schema.TaggedError<InvalidIssueId>()("InvalidIssueId", {
  issueId: Schema.String,
  expected: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `"${this.issueId}" is not an issue id here: expected ${this.expected}`
  }
}

/** The tracker could not be asked (network, outage, credentials). A spawn goes on without the issue's text. */
export class TrackerUnavailable extends Schema.TaggedError<TrackerUnavailable>()("TrackerUnavailable", {
  tracker: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.tracker} unavailable: ${this.reason}`
  }
}

/** The tracker refused orch's credentials: a configuration error, named by its config key (never its value). */
export class TrackerAuthFailed extends Schema.TaggedError<TrackerAuthFailed>()("TrackerAuthFailed", {
  tracker: Schema.String,
  key: Schema.String,
  reason: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override get message() {
    return `${this.tracker} refused the API key in ${this.key}: ${this.reason}`
  }
}

export type TrackerError = IssueNotFound | InvalidIssueId | TrackerUnavailable | TrackerAuthFailed

export interface TrackerShape {
  readonly name: string
  /** The issue; `undefined` from a tracker that keeps no issues (`none`): the id then stands alone, with no lookup. */
  readonly getIssue: (issueId: string) => Effect.Effect<Issue | undefined, TrackerError>
  /** The tracker's issues name their branch (`Issue.branchName`): a spawn waits for the issue before branching. */
  readonly namesBranches?: boolean
  /** The workflow state of each issue it knows, in one request; for cleaning up sessions whose issue is over. */
  readonly issueStates?: (issueIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, IssueState>, TrackerUnavailable | TrackerAuthFailed>
  /**
   * Open issues that carry every one of `labels`, newest first (at most 100): what intake queues (docs/queue.md).
   * One request per call.
   */
  readonly openIssues?: (labels: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Issue>, TrackerUnavailable | TrackerAuthFailed>
  /** Hears each event of a session while a supervisor runs; e.g. comments on the issue. */
  readonly onSessionEvent?: (update: SessionUpdate) => Effect.Effect<void, TrackerError>
}

/** A tracker that keeps issues (every built-in but `none`): a lookup answers the issue or fails. */
export interface IssueTrackerShape extends TrackerShape {
  readonly getIssue: (issueId: string) => Effect.Effect<Issue, TrackerError>
}

/** An in-memory tracker for tests: its issues are a record the test changes; what it hears of sessions is logged. */
export interface TestTracker extends IssueTrackerShape {
  readonly issues: Map<string, Issue>
  readonly updates: Array<SessionUpdate>
}

export const makeTestTracker = (issues: ReadonlyArray<Issue> = []): TestTracker => {
  const byId = new Map(issues.map((issue) => [issue.id, issue]))
  const updates: Array<SessionUpdate> = []
  const idOf = (issueId: string) => issueId.replace(/^#/, "")
  return {
    name: "test",
    issues: byId,
    updates,
    getIssue: (issueId) =>
      Effect.suspend(() => {
        const issue = byId.get(idOf(issueId))
        return issue === undefined ? Effect.fail(new IssueNotFound({ issueId, where: "the test tracker" })) : Effect.succeed(issue)
      }),
    issueStates: (issueIds) =>
      Effect.sync(() =>
        new Map(issueIds.flatMap((id) => {
          const state = byId.get(idOf(id))?.state
          return state === undefined ? [] : [[idOf(id), state] as const]
        }))
      ),
    openIssues: (labels) =>
      Effect.sync(() =>
        [...byId.values()].filter((issue) => issue.state?.completed !== true && labels.every((label) => issue.labels.includes(label))).reverse()
      ),
    onSessionEvent: (update) => Effect.sync(() => void updates.push(update))
  }
}

export class Tracker extends Context.Service<Tracker, TrackerShape>()("orch/plugins/Tracker") {
  static readonly layerTest = (tracker: TestTracker = makeTestTracker()) => Layer.succeed(Tracker, tracker)
}
