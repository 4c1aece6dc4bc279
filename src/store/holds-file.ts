/**
 * Where a project's sessions cannot start now (src/domain/holds.ts): `<dataDir>/holds.json`, changed under the
 * `holds` lock (the supervisor's admission and a CLI's spawn both learn of failures) and written atomically. A file
 * that is missing holds nothing; one that does not decode is an error, with what to do.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type Hold, HoldsFile } from "../domain/holds.ts"
import { errnoReason, StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"
import { withLock } from "./lock.ts"
import { storePaths } from "./paths.ts"

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(HoldsFile))
export const holdsPath = (root: string) => join(root, "holds.json")

export const readHolds = (root: string): Effect.Effect<ReadonlyArray<Hold>, StoreError> =>
  Effect.suspend(() => {
    const path = holdsPath(root)
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code
      if (code === "ENOENT" || code === "ENOTDIR") return Effect.succeed([])
      return Effect.fail(new StoreError({ path, reason: errnoReason(cause) }))
    }
    const decoded = decode(text)
    return decoded._tag === "Success"
      ? Effect.succeed(decoded.success.holds)
      : Effect.fail(
        new StoreError({ path, reason: `not what orch writes: ${decoded.failure.message.split("\n")[0]}; move it away (every host is tried again)` })
      )
  })

/** Changes the holds under their lock: `f` answers the next holds (undefined: unchanged) and its answer. */
export const changeHolds = <A>(root: string, f: (holds: ReadonlyArray<Hold>, now: number) => readonly [ReadonlyArray<Hold> | undefined, A]) =>
  withLock(storePaths(root).locks, "holds", "30 seconds")(Effect.gen(function*() {
    const [next, answer] = f(yield* readHolds(root), yield* Clock.currentTimeMillis)
    if (next !== undefined) yield* writeFileAtomic(holdsPath(root), `${JSON.stringify({ holds: next }, null, 2)}\n`)
    return answer
  }))
