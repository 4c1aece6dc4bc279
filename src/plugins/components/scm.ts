/** A built-in scm as a plugin module's component: the Effect scm behind Promise methods. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { decodeWith } from "../contract/common.ts"
import type { PullRequestViewFromPlugin, ScmComponent } from "../contract/scm.ts"
import { MERGE_METHODS, type MergeMethod, ScmError, type ScmShape } from "../scm/Scm.ts"

/** The component a built-in scm module's `create` returns, each method answering with a Promise. */
export interface BuiltinScm extends ScmComponent {
  readonly name: string
  observe(branch: string): Promise<PullRequestViewFromPlugin>
  /** Merges with `method`, else the one the scm was created with. */
  merge(prNumber: number, method?: MergeMethod): Promise<void>
}

export const scmComponent = (shape: ScmShape, mergeMethod: MergeMethod): BuiltinScm => {
  const input = <S extends Schema.Decoder<unknown>>(schema: S, operation: string, what: string) => (value: unknown) =>
    Effect.mapError(decodeWith(schema)(value), (problem) => new ScmError({ plugin: shape.name, operation, reason: `${what} is not valid: ${problem}` }))
  return {
    name: shape.name,
    observe: (branch) => Effect.runPromise(Effect.flatMap(input(Schema.String, "observe", "the branch")(branch), shape.observe)),
    merge: (prNumber, method = mergeMethod) =>
      Effect.runPromise(Effect.gen(function*() {
        const number = yield* input(Schema.Int, "merge", "the pull request number")(prNumber)
        return yield* shape.merge(number, yield* input(Schema.Literals(MERGE_METHODS), "merge", "the merge method")(method))
      }))
  }
}
