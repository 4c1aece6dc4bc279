/** The scm slot: where a session's pull request, its checks and its reviews live, and how it is merged. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ScmConfig } from "../../config/schema.ts"
import type { RateBudget } from "../../domain/rate-budget.ts"
import { PluginConfigError } from "../config-error.ts"
import type { PullRequestViewFromPlugin } from "../contract/scm.ts"

export class ScmError extends Schema.TaggedError<ScmError>()("ScmError", {
  plugin: Schema.String,
  operation: Schema.String,
  reason: Schema.String,
  /** The host's HTTP status, when it answered. */
  status: Schema.optionalKey(Schema.Int)
}) {
  override get message() {
    return `${this.plugin}: ${this.operation} failed: ${this.reason}`
  }
}

/**
 * Everything the lifecycle needs to know about a branch's pull request: what a plugin module's `observe` is
 * decoded to, whoever made it (its Schema is contract/scm.ts's).
 */
export type PullRequestView = typeof PullRequestViewFromPlugin.Type

export interface ScmShape {
  readonly name: string
  /** The newest pull request whose head is `branch`, with its checks and reviews. */
  readonly observe: (branch: string) => Effect.Effect<PullRequestView, ScmError>
  /** The pull requests of many branches at once (one batched query where the host allows it). */
  readonly observeMany?: (branches: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, PullRequestView>, ScmError>
  readonly merge: (prNumber: number, method: MergeMethod) => Effect.Effect<void, ScmError>
  /** The API's rate-limit budget as last seen, where the host has one. */
  readonly budget?: () => RateBudget | undefined
}

export const MERGE_METHODS = ["squash", "merge", "rebase"] as const
export type MergeMethod = (typeof MERGE_METHODS)[number]

/** How the project's PRs are merged: `scm.mergeMethod`, default squash. */
export const mergeMethodOf = (config: ScmConfig | undefined): MergeMethod => MERGE_METHODS.find((method) => method === config?.mergeMethod) ?? "squash"

/** What is wrong with a `mergeMethod` that is not one of MERGE_METHODS, naming the key; undefined when nothing. */
export const mergeMethodProblem = (config: ScmConfig | undefined, where: string): PluginConfigError | undefined =>
  config?.mergeMethod === undefined || MERGE_METHODS.some((method) => method === config.mergeMethod)
    ? undefined
    : new PluginConfigError({ key: `${where}.mergeMethod`, reason: `must be squash, merge or rebase, not ${JSON.stringify(config.mergeMethod)}` })

/** A branch with no pull request. */
export const NO_PULL_REQUEST: PullRequestView = { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] }

/** An in-memory scm for tests: the pull request of each branch is a record the test sets; looks and merges are logged. */
export interface TestScm extends ScmShape {
  readonly views: Map<string, PullRequestView>
  /** The branches looked at, in order. */
  readonly looks: Array<string>
  readonly merges: Array<{ readonly prNumber: number; readonly method: MergeMethod }>
}

export const makeTestScm = (): TestScm => {
  const views = new Map<string, PullRequestView>()
  const looks: Array<string> = []
  const merges: Array<{ readonly prNumber: number; readonly method: MergeMethod }> = []
  return {
    name: "test",
    views,
    looks,
    merges,
    observe: (branch) =>
      Effect.sync(() => {
        looks.push(branch)
        return views.get(branch) ?? NO_PULL_REQUEST
      }),
    merge: (prNumber, method) =>
      Effect.suspend(() => {
        const found = [...views].find(([, view]) => view.pr?.number === prNumber)
        if (found === undefined) return Effect.fail(new ScmError({ plugin: "test", operation: "merge", reason: `no pull request #${prNumber}`, status: 404 }))
        const [branch, view] = found
        if (view.pr!.state !== "open") {
          return Effect.fail(new ScmError({ plugin: "test", operation: "merge", reason: `#${prNumber} is ${view.pr!.state}`, status: 405 }))
        }
        merges.push({ prNumber, method })
        views.set(branch, { ...view, pr: { ...view.pr!, state: "merged" } })
        return Effect.void
      })
  }
}

export class Scm extends Context.Service<Scm, ScmShape>()("orch/plugins/Scm") {
  static readonly layerTest = (scm: TestScm = makeTestScm()) => Layer.succeed(Scm, scm)
}
