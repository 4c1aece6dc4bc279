/**
 * A webhook said a branch changed: its sessions' PRs are looked at now rather than at the next poll, deliveries
 * coalesced as rules/webhook-coalescing.ts decides (the state of each session's look is kept here). A look that fails
 * is reported (the loop guard) and left to the next PR poll.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ScmShape } from "../src/plugins/scm/Scm.ts"
import { type LookEvent, type LookState, nextLook, WEBHOOK_SETTLE } from "./rules/webhook-coalescing.ts"
import { SessionActors } from "./session-actors.ts"
import { SupervisorLoops } from "./supervisor-loops.ts"
import { WatchedProjects } from "./watched-projects.ts"

/** What a failed look at a PR (a webhook's, or after a merge) leaves to. */
export const LOOK_AGAIN = "the next PR poll looks again"

export interface WebhookLooksShape {
  /** `branch` of `repo` changed (a webhook): the PR of each session on it is looked at, once the burst settles. */
  readonly branchChanged: (repo: string, branch: string) => Effect.Effect<void>
  /** Looks at the session's PR now (after a merge, say): what it shows goes to the session's actor. */
  readonly lookNow: (sessionId: string, branch: string, scm: ScmShape) => Effect.Effect<void>
}

export class WebhookLooks extends Context.Service<WebhookLooks, WebhookLooksShape>()("orch/actors/WebhookLooks") {
  static readonly layer = Layer.effect(
    WebhookLooks,
    Effect.gen(function*() {
      const actors = yield* SessionActors
      const projects = yield* WatchedProjects
      const { loops } = yield* SupervisorLoops
      const looks = new Map<string, LookState>()

      const lookStep = (sessionId: string, event: LookEvent) =>
        Effect.sync(() => {
          const { state, action } = nextLook(looks.get(sessionId), event)
          if (state === undefined) looks.delete(sessionId)
          else looks.set(sessionId, state)
          return action
        })

      const lookNow = (sessionId: string, branch: string, scm: ScmShape) =>
        loops.looks.attempt(Effect.flatMap(scm.observe(branch), (view) => actors.observe(sessionId, { _tag: "PullRequest", ...view })), LOOK_AGAIN)

      const lookAt = (sessionId: string, branch: string, scm: ScmShape): Effect.Effect<void> => {
        const look: Effect.Effect<void> = lookNow(sessionId, branch, scm).pipe(
          Effect.andThen(lookStep(sessionId, "look-ended")),
          Effect.flatMap((action) => (action === "look" ? look : Effect.void))
        )
        return Effect.flatMap(lookStep(sessionId, "delivery"), (action) =>
          action !== "settle" ? Effect.void : Effect.sleep(WEBHOOK_SETTLE).pipe(
            Effect.andThen(lookStep(sessionId, "settled")),
            Effect.andThen(look),
            Effect.onInterrupt(() => Effect.asVoid(lookStep(sessionId, "stopped")))
          ))
      }

      const branchChanged = Effect.fn("WebhookLooks.branchChanged")((repo: string, branch: string) =>
        Effect.forEach(
          actors.entries().filter(({ record }) => record.branch === branch && projects.get(record.projectId)?.project.repo === repo),
          ({ record }) => {
            const scm = projects.get(record.projectId)?.scm
            return scm === undefined ? Effect.void : lookAt(record.sessionId, branch, scm)
          },
          { discard: true }
        )
      )

      return WebhookLooks.of({ branchChanged, lookNow })
    })
  )
}
