/**
 * The repohost poll: each live worker's pull request, as its project's scm sees it (one batched question per project
 * where the scm can), to the session's actor; a project whose repohost fails holds up no other. What is left of the
 * repohost's rate limit is written to repohost.json for `orch status` (which reads files only), and paces the poll
 * (rules/poll-pace.ts).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import type { RateBudget } from "../src/domain/rate-budget.ts"
import type { SessionRecord } from "../src/domain/session.ts"
import type { ScmShape } from "../src/plugins/scm/Scm.ts"
import { writeFileAtomic } from "../src/store/files.ts"
import { SessionStore } from "../src/store/SessionStore.ts"
import { PartsFailed } from "./loop-guard.ts"
import { SessionActors } from "./session-actors.ts"
import { WatchedProjects } from "./watched-projects.ts"

export interface PullRequestWatchShape {
  /** One poll; fails, once every project was asked, with the projects whose repohost failed. */
  readonly poll: () => Effect.Effect<void, unknown>
  /** The repohosts' rate-limit budgets as last seen, one per project whose scm has one. */
  readonly budgets: () => ReadonlyArray<RateBudget>
}

export class PullRequestWatch extends Context.Service<PullRequestWatch, PullRequestWatchShape>()("orch/actors/PullRequestWatch") {
  static readonly layer = Layer.effect(
    PullRequestWatch,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const actors = yield* SessionActors
      const projects = yield* WatchedProjects

      const budgetsByProject = () =>
        projects.all().flatMap(({ project, scm }) => {
          const budget = scm?.budget?.()
          return budget === undefined ? [] : [[project.id, budget] as const]
        })

      /** One project's workers' PRs, to their actors; answers the project when its repohost failed. */
      const pollProject = (projectId: string, scm: ScmShape, records: ReadonlyArray<SessionRecord>) => {
        const views = scm.observeMany !== undefined
          ? scm.observeMany(records.map((record) => record.branch))
          : Effect.map(
            Effect.forEach(records, (record) => Effect.map(scm.observe(record.branch), (view) => [record.branch, view] as const)),
            (entries) => new Map(entries)
          )
        return views.pipe(
          Effect.flatMap((byBranch) =>
            Effect.forEach(records, (record) => {
              const view = byBranch.get(record.branch)
              return view === undefined ? Effect.void : actors.observe(record.sessionId, { _tag: "PullRequest", ...view })
            }, { discard: true })
          ),
          Effect.as([]),
          Effect.catch((error) => Effect.succeed([{ name: projectId, reason: error.message }]))
        )
      }

      const poll = Effect.fn("PullRequestWatch.poll")(function*() {
        const workers = actors.entries().map((entry) => entry.record).filter((record) => record.role === undefined)
        const failed = (yield* Effect.forEach(projects.all(), ({ project, scm }) => {
          const records = workers.filter((record) => record.projectId === project.id)
          return scm === undefined || records.length === 0 ? Effect.succeed([]) : pollProject(project.id, scm, records)
        })).flat()
        const budgets = Object.fromEntries(budgetsByProject())
        if (Object.keys(budgets).length > 0) {
          yield* writeFileAtomic(
            join(store.paths.root, "repohost.json"),
            `${JSON.stringify({ checkedAt: new Date(yield* Clock.currentTimeMillis).toISOString(), budgets })}\n`
          )
        }
        if (failed.length > 0) return yield* new PartsFailed({ parts: failed })
      })

      return PullRequestWatch.of({ poll, budgets: () => budgetsByProject().map(([, budget]) => budget) })
    })
  )
}
