/** Reading a file orch writes whole (a JSON document): absent is `missing`; one that does not decode is an error saying what to do. */
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { errnoReason, StoreError } from "./errors.ts"

export const readJsonFile = <A>(
  path: string,
  decode: (text: string) => Result.Result<A, Schema.SchemaError>,
  options: { readonly missing: A; readonly whenUnreadable: string }
): Effect.Effect<A, StoreError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code
      if (code === "ENOENT" || code === "ENOTDIR") return Effect.succeed(options.missing)
      return Effect.fail(new StoreError({ path, reason: errnoReason(cause) }))
    }
    const decoded = decode(text)
    return decoded._tag === "Success"
      ? Effect.succeed(decoded.success)
      : Effect.fail(new StoreError({ path, reason: `not what orch writes: ${decoded.failure.message.split("\n")[0]}; ${options.whenUnreadable}` }))
  })
