/** The tracker slot as a plugin module's component sees it: where a session's issue comes from. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SessionUpdate } from "../tracker/Tracker.ts"
import type { Returned } from "./common.ts"

export type { SessionUpdate }

/** Where an issue is in the tracker's workflow; `completed` when its work is over (done or canceled). */
export const IssueStateFromPlugin = Schema.Struct({
  name: Schema.String,
  completed: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false)))
})
export type IssueStateFromPlugin = typeof IssueStateFromPlugin.Encoded

/** What `getIssue` returns for an issue that exists. `id` defaults to the id asked for; a null `body` is empty. */
export const IssueFromPlugin = Schema.Struct({
  id: Schema.optionalKey(Schema.Union([Schema.String, Schema.Finite])),
  title: Schema.String,
  body: Schema.optional(Schema.NullOr(Schema.String)),
  labels: Schema.optionalKey(Schema.Array(Schema.String)),
  url: Schema.optionalKey(Schema.String),
  /** The branch the tracker suggests for the issue's work; used when the component has `namesBranches: true`. */
  branchName: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(IssueStateFromPlugin)
})
export type IssueFromPlugin = typeof IssueFromPlugin.Encoded

/** What `getIssue` returns: the issue, or null (or nothing) when there is no such issue. */
export const IssueOrNoneFromPlugin = Schema.UndefinedOr(Schema.NullOr(IssueFromPlugin))

/** What `issueStates` returns: each known issue's state by id, as an object or a Map. */
export const IssueStatesFromPlugin = Schema.Union([
  // The Map first: a Map is also an object, whose own keys (none) would make an empty record.
  Schema.ReadonlyMap(Schema.String, IssueStateFromPlugin),
  Schema.Record(Schema.String, IssueStateFromPlugin)
])
export type IssueStatesFromPlugin = typeof IssueStatesFromPlugin.Encoded

export interface TrackerComponent {
  readonly name?: string
  /** The component's issues name their branch (`branchName`): a session branches on it. */
  readonly namesBranches?: boolean
  getIssue(issueId: string): Returned<IssueFromPlugin | null | undefined>
  /** The state of many issues in one request, for cleaning up sessions whose issue is over. */
  issueStates?(issueIds: ReadonlyArray<string>): Returned<IssueStatesFromPlugin>
  /** Hears each event of a session while a supervisor runs (e.g. to comment on the issue). */
  onSessionEvent?(update: SessionUpdate): Returned<unknown>
}
