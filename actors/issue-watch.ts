/**
 * The tracker poll, every ISSUE_POLL_INTERVAL: projects whose tracker can tell issue states (tracker-b) are asked, in
 * one request each, for the state of their live workers' issues; sessions whose issue is completed (done, canceled)
 * are cleaned up like those whose PR merged.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SessionManager } from "../src/sessions/SessionManager.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { PartsFailed } from "./loop-guard.ts"
import { WatchedProjects } from "./watched-projects.ts"

export const ISSUE_POLL_INTERVAL = "1 minute"

export interface IssueWatchShape {
  /** One poll; fails, after cleaning up what it could, with the projects whose tracker could not be asked. */
  readonly poll: () => Effect.Effect<void, unknown>
}

export class IssueWatch extends Context.Service<IssueWatch, IssueWatchShape>()("orch/actors/IssueWatch") {
  static readonly layer = Layer.effect(
    IssueWatch,
    Effect.gen(function*() {
      const manager = yield* SessionManager
      const store = yield* SessionStore
      const projects = yield* WatchedProjects
      const poll = Effect.fn("IssueWatch.poll")(function*() {
        if (!projects.all().some((p) => p.tracker.issueStates !== undefined)) return
        const { records } = yield* store.list
        const { states, unanswered } = yield* manager.issueStates(records.filter((r) => projects.isLive(r) && r.role === undefined))
        if ([...states.values()].some((state) => state.completed)) yield* manager.cleanup({ dryRun: false })
        if (unanswered.length > 0) return yield* new PartsFailed({ parts: unanswered })
      })
      return IssueWatch.of({ poll })
    })
  )
}
