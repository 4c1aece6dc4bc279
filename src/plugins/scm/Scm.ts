/** The scm slot: where a session's pull request, its checks and its reviews live, and how it is merged. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ScmConfig } from "../../config/schema.ts"
import type { RateBudget } from "../../domain/rate-budget.ts"
import type { MergeAnswer, PullFacts, UpdateAnswer } from "../../domain/train.ts"
import { PluginConfigError, unknownSettingProblem } from "../config-error.ts"
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
  /** What the merge train needs (docs/supervisor.md "Merge train"); absent: the scm cannot run one. */
  readonly train?: ScmTrainShape
}

/** The merge train's requests: a PR's head against the default branch's head, branch updates, merges with the head pinned. */
export interface ScmTrainShape {
  readonly look: (prNumber: number, defaultBranch: string) => Effect.Effect<PullFacts, ScmError>
  /** update-branch with the head the train saw; every answer is a value (a refusal says what it means). */
  readonly updateBranch: (prNumber: number, expectedHead: string) => Effect.Effect<UpdateAnswer>
  /** Merges only if the head is still `head`. */
  readonly mergeAt: (prNumber: number, method: MergeMethod, head: string) => Effect.Effect<MergeAnswer>
}

export const MERGE_METHODS = ["squash", "merge", "rebase"] as const
export type MergeMethod = (typeof MERGE_METHODS)[number]

/** How the project's PRs are merged: `scm.mergeMethod`, default squash. */
export const mergeMethodOf = (config: ScmConfig | undefined): MergeMethod => MERGE_METHODS.find((method) => method === config?.mergeMethod) ?? "squash"

/** The settings the built-in repohost scm reads (docs/configuration.md); any other key is a mistake. */
export const REPOHOST_SCM_KEYS = ["plugin", "package", "path", "apiUrl", "token", "webhookSecret", "mergeMethod"] as const

/**
 * What is wrong with the repohost scm's settings, naming the key: one it does not read (a typo of `mergeMethod`
 * would otherwise merge with squash, silently), or a `mergeMethod` that is not one of MERGE_METHODS; undefined when nothing.
 */
export const repohostScmProblem = (config: ScmConfig | undefined, where: string): PluginConfigError | undefined => {
  const unknown = unknownSettingProblem(config, REPOHOST_SCM_KEYS, where, "repohost scm")
  if (unknown !== undefined) return unknown
  return config?.mergeMethod === undefined || MERGE_METHODS.some((method) => method === config.mergeMethod)
    ? undefined
    : new PluginConfigError({ key: `${where}.mergeMethod`, reason: `must be squash, merge or rebase, not ${JSON.stringify(config.mergeMethod)}` })
}

/** A branch with no pull request. */
export const NO_PULL_REQUEST: PullRequestView = { pr: null, checks: null, review: null, mergeable: null, failingChecks: [], reviewComments: [] }

/** An in-memory scm for tests: the pull request of each branch is a record the test sets; looks and merges are logged. */
export interface TestScm extends ScmShape {
  readonly views: Map<string, PullRequestView>
  /** The branches looked at, in order. */
  readonly looks: Array<string>
  readonly merges: Array<{ readonly prNumber: number; readonly method: MergeMethod }>
  /** The merge train's view of each PR, by number, set by the test; updates and merges change it as a repohost would. */
  readonly pulls: Map<number, PullFacts>
  /** update-branch calls, in order; `updateAnswers` (first first) answers them, else the branch is updated. */
  readonly updates: Array<{ readonly prNumber: number; readonly expectedHead: string }>
  readonly updateAnswers: Array<UpdateAnswer>
  /** Merges with the head pinned, in order. */
  readonly mergesAt: Array<{ readonly prNumber: number; readonly head: string }>
}

export const makeTestScm = (): TestScm => {
  const views = new Map<string, PullRequestView>()
  const looks: Array<string> = []
  const merges: Array<{ readonly prNumber: number; readonly method: MergeMethod }> = []
  const pulls = new Map<number, PullFacts>()
  const updates: Array<{ readonly prNumber: number; readonly expectedHead: string }> = []
  const updateAnswers: Array<UpdateAnswer> = []
  const mergesAt: Array<{ readonly prNumber: number; readonly head: string }> = []
  const noPull = (prNumber: number, operation: string) => new ScmError({ plugin: "test", operation, reason: `no pull request #${prNumber}`, status: 404 })
  const train: ScmTrainShape = {
    look: (prNumber) => Effect.suspend(() => Effect.fromNullishOr(pulls.get(prNumber)).pipe(Effect.mapError(() => noPull(prNumber, "look")))),
    updateBranch: (prNumber, expectedHead) =>
      Effect.sync(() => {
        updates.push({ prNumber, expectedHead })
        const pull = pulls.get(prNumber)
        if (pull === undefined) return { _tag: "Unknown", reason: noPull(prNumber, "update-branch").message }
        if (pull.head !== expectedHead) return { _tag: "HeadMoved" }
        const answer = updateAnswers.shift() ?? (pull.upToDate ? { _tag: "AlreadyUpToDate" } : { _tag: "Updated" })
        if (answer._tag === "Updated") {
          pulls.set(prNumber, { ...pull, head: `${pull.head}+${pull.base.slice(0, 7)}`, upToDate: true, checks: "pending", failingChecks: [] })
        }
        return answer
      }),
    mergeAt: (prNumber, method, head) =>
      Effect.sync((): MergeAnswer => {
        const pull = pulls.get(prNumber)
        if (pull === undefined || pull.state !== "open") return { _tag: "Refused", reason: `#${prNumber} is not open` }
        if (pull.head !== head) return { _tag: "Refused", reason: "Head branch was modified. Review and try the merge again." }
        mergesAt.push({ prNumber, head })
        merges.push({ prNumber, method })
        pulls.set(prNumber, { ...pull, state: "merged" })
        for (const [branch, view] of views) if (view.pr?.number === prNumber) views.set(branch, { ...view, pr: { ...view.pr, state: "merged" } })
        return { _tag: "Merged" }
      })
  }
  return {
    name: "test",
    views,
    looks,
    merges,
    pulls,
    updates,
    updateAnswers,
    mergesAt,
    train,
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
