/** The tracker slot: where a session's issue comes from. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"

export interface Issue {
  readonly id: string
  readonly title: string
  readonly body: string
  readonly labels: ReadonlyArray<string>
  readonly url?: string
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

export interface TrackerShape {
  readonly name: string
  readonly getIssue: (issueId: string) => Effect.Effect<Issue, IssueNotFound | InvalidIssueId | TrackerUnavailable>
}

export class Tracker extends Context.Service<Tracker, TrackerShape>()("orch/plugins/Tracker") {}
