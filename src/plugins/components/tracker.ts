/**
 * A built-in tracker as a plugin module's component: the Effect tracker behind Promise methods, answering as the
 * tracker contract says (`getIssue` is null when there is no such issue).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { decodeWith } from "../contract/common.ts"
import type { IssueFromPlugin, IssueStateFromPlugin, SessionUpdate, TrackerComponent } from "../contract/tracker.ts"
import { type IssueTrackerShape, TrackerUnavailable } from "../tracker/Tracker.ts"

/** The component a built-in tracker module's `create` returns, each method answering with a Promise. */
export interface BuiltinTracker extends TrackerComponent {
  readonly name: string
  readonly namesBranches: boolean
  getIssue(issueId: string): Promise<IssueFromPlugin | null>
  issueStates(issueIds: ReadonlyArray<string>): Promise<Readonly<Record<string, IssueStateFromPlugin>>>
  onSessionEvent(update: SessionUpdate): Promise<void>
}

export const trackerComponent = (shape: IssueTrackerShape): BuiltinTracker => {
  const input = <S extends Schema.Decoder<unknown>>(schema: S, what: string) => (value: unknown) =>
    Effect.mapError(decodeWith(schema)(value), (problem) => new TrackerUnavailable({ tracker: shape.name, reason: `${what} is not valid: ${problem}` }))
  return {
    name: shape.name,
    namesBranches: shape.namesBranches === true,
    getIssue: (issueId) =>
      Effect.runPromise(
        Effect.flatMap(input(Schema.String, "the issue id")(issueId), shape.getIssue).pipe(
          Effect.catchTag("IssueNotFound", () => Effect.succeed(null))
        )
      ),
    issueStates: (issueIds) =>
      Effect.runPromise(Effect.gen(function*() {
        const ids = yield* input(Schema.Array(Schema.String), "the issue ids")(issueIds)
        if (shape.issueStates === undefined) {
          return yield* new TrackerUnavailable({ tracker: shape.name, reason: "it cannot tell issues' states" })
        }
        return Object.fromEntries(yield* shape.issueStates(ids))
      })),
    onSessionEvent: (update) => Effect.runPromise(shape.onSessionEvent === undefined ? Effect.void : shape.onSessionEvent(update))
  }
}
