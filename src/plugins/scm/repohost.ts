/**
 * Scm `repohost`: the pull requests of a project's session branches through GitHub's GraphQL API, many branches
 * per query (one alias each), and merging through REST; both through the credential's gateway
 * (`apiUrl`, token as for the tracker), shared with the process's other repohost plugins when `access` is theirs.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ScmConfig } from "../../config/schema.ts"
import { expected, readAnswer } from "../answer.ts"
import { makeRepohostAccess, type RepohostAccess, repohostApiUrl, repohostHeaders, repohostToken } from "../repohost/access.ts"
import { BRANCHES_PER_QUERY, NO_PULL_REQUEST, PullNode, PullRequestsAnswer, pullRequestsQuery, readPull } from "./pull-query.ts"
import { type PullRequestView, ScmError, type ScmShape } from "./Scm.ts"
import { makeTrainRequests } from "./train-requests.ts"

const MergeAnswer = Schema.Struct({ merged: Schema.Boolean })

export const makeRepohostScm = (
  repo: string,
  config: ScmConfig,
  env: Readonly<Record<string, string | undefined>>,
  access: RepohostAccess = makeRepohostAccess(env)
): ScmShape => {
  const apiUrl = repohostApiUrl(config)
  const gateway = access.gateways.for("repohost", apiUrl, repohostHeaders(repohostToken(config, env, access)))
  const [owner, name] = repo.split("/") as [string, string]

  const observeChunk = (branches: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const { query, variables } = pullRequestsQuery(branches)
      const operation = "GraphQL OrchPullRequests"
      const data = yield* gateway.graphql(query, variables(owner, name), expected(PullRequestsAnswer, "the pull requests of its branches"))
      const found = data.repository
      if (found === null) return yield* new ScmError({ plugin: "repohost", operation, reason: `${repo} does not exist or the token cannot see it` })
      return yield* Effect.forEach(branches, (branch, i) => {
        const node = found[`b${i}`]?.nodes[0]
        if (node === undefined) return Effect.succeed([branch, NO_PULL_REQUEST] as const)
        return readAnswer(expected(PullNode, `the pull request of ${branch}`))(node).pipe(
          Effect.mapError((problem) => new ScmError({ plugin: "repohost", operation, reason: `the repohost ${problem}` })),
          Effect.map((pull) => [branch, readPull(pull)] as const)
        )
      })
    })

  const observeMany = Effect.fn("Scm.repohost.observeMany")(function*(branches: ReadonlyArray<string>) {
    const unique = [...new Set(branches)]
    const chunks = Array.from(
      { length: Math.ceil(unique.length / BRANCHES_PER_QUERY) },
      (_, i) => unique.slice(i * BRANCHES_PER_QUERY, (i + 1) * BRANCHES_PER_QUERY)
    )
    const results = yield* Effect.forEach(chunks, observeChunk, { concurrency: 2 })
    return new Map<string, PullRequestView>(results.flat())
  })

  return {
    name: "repohost",
    observe: (branch) => Effect.map(observeMany([branch]), (views) => views.get(branch)!),
    observeMany,
    merge: (prNumber, method) =>
      Effect.asVoid(gateway.send("PUT", `/repos/${repo}/pulls/${prNumber}/merge`, { merge_method: method }, expected(MergeAnswer, "a merge"))),
    budget: gateway.budget,
    train: makeTrainRequests(gateway, repo)
  }
}
