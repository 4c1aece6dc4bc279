/**
 * Where a project's sessions cannot start now (src/domain/holds.ts): `<dataDir>/holds.json`, changed under the
 * `holds` lock (the supervisor's admission and a CLI's spawn both learn of failures) and written atomically. A file
 * that is missing holds nothing; one that does not decode is an error, with what to do.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { join } from "node:path"
import { type Hold, HoldsFile } from "../domain/holds.ts"
import type { StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"
import { readJsonFile } from "./json-file.ts"
import { withLock } from "./lock.ts"
import { storePaths } from "./paths.ts"

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(HoldsFile))
export const holdsPath = (root: string) => join(root, "holds.json")

export const readHolds = (root: string): Effect.Effect<ReadonlyArray<Hold>, StoreError> =>
  Effect.map(
    readJsonFile(holdsPath(root), decode, { missing: { holds: [] }, whenUnreadable: "move it away (every host is tried again)" }),
    (file) => file.holds
  )

/** Changes the holds under their lock: `f` answers the next holds (undefined: unchanged) and its answer. */
export const changeHolds = <A>(root: string, f: (holds: ReadonlyArray<Hold>, now: number) => readonly [ReadonlyArray<Hold> | undefined, A]) =>
  withLock(storePaths(root).locks, "holds", "30 seconds")(Effect.gen(function*() {
    const [next, answer] = f(yield* readHolds(root), yield* Clock.currentTimeMillis)
    if (next !== undefined) yield* writeFileAtomic(holdsPath(root), `${JSON.stringify({ holds: next }, null, 2)}\n`)
    return answer
  }))
