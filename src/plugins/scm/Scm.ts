/** The scm slot: where a session's pull request, its checks and its reviews live, and how it is merged. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ScmConfig } from "../../config/schema.ts"
import { PluginConfigError } from "../config-error.ts"
import type { RateBudget } from "../../domain/rate-budget.ts"
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
export const mergeMethodOf = (config: ScmConfig | undefined): MergeMethod =>
  MERGE_METHODS.find((method) => method === config?.mergeMethod) ?? "squash"

/** What is wrong with a `mergeMethod` that is not one of MERGE_METHODS, naming the key; undefined when nothing. */
export const mergeMethodProblem = (config: ScmConfig | undefined, where: string): PluginConfigError | undefined =>
  config?.mergeMethod === undefined || MERGE_METHODS.some((method) => method === config.mergeMethod)
    ? undefined
    : new PluginConfigError({ key: `${where}.mergeMethod`, reason: `must be squash, merge or rebase, not ${JSON.stringify(config.mergeMethod)}` })

export class Scm extends Context.Service<Scm, ScmShape>()("orch/plugins/Scm") {}
