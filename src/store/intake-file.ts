/**
 * What intake has seen: `<dataDir>/intake.json`, per project the issues the last poll found open with its labels
 * (actors/rules/intake.ts), written atomically after each poll so a restarted supervisor does not queue them again.
 * A file that is missing is nothing seen; one that does not decode is an error (queuing everything again is not
 * a safe way to recover).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { errnoReason, StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"

export const IntakeSeen = Schema.Struct({ projects: Schema.Record(Schema.String, Schema.Array(Schema.String)) })
export type IntakeSeen = typeof IntakeSeen.Type

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(IntakeSeen))
export const intakePath = (root: string) => join(root, "intake.json")

export const readIntakeSeen = (root: string): Effect.Effect<IntakeSeen, StoreError> =>
  Effect.suspend(() => {
    const path = intakePath(root)
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "ENOENT") return Effect.succeed({ projects: {} })
      return Effect.fail(new StoreError({ path, reason: errnoReason(cause) }))
    }
    const decoded = decode(text)
    return decoded._tag === "Success"
      ? Effect.succeed(decoded.success)
      : Effect.fail(
        new StoreError({
          path,
          reason: `not what intake writes: ${decoded.failure.message.split("\n")[0]}; move it away (intake then queues every open labelled issue again)`
        })
      )
  })

export const writeIntakeSeen = (root: string, seen: IntakeSeen): Effect.Effect<void, StoreError> =>
  writeFileAtomic(intakePath(root), `${JSON.stringify(seen)}\n`)
