/**
 * The measured size of a session, per agent plugin: `<dataDir>/session-sizes.json`, written atomically by the
 * supervisor after each minute's sample, read by admission (the supervisor's and `batch-spawn`'s). A file that is
 * missing or does not decode means nothing is measured yet: the default holds.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentSize } from "../domain/session-size.ts"
import type { StoreError } from "./errors.ts"
import { writeFileAtomic } from "./files.ts"

export const SessionSizes = Schema.Struct({
  at: Schema.String,
  agents: Schema.Record(Schema.String, Schema.Struct({ bytes: Schema.Number, rounds: Schema.Int }))
})
export type SessionSizes = typeof SessionSizes.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(SessionSizes))
export const sessionSizesPath = (root: string) => join(root, "session-sizes.json")

/** The file as the last sample left it; undefined when there is none or it does not decode. */
export const readSessionSizesFile = (root: string): SessionSizes | undefined => {
  try {
    const decoded = decode(readFileSync(sessionSizesPath(root), "utf8"))
    return decoded._tag === "Some" ? decoded.value : undefined
  } catch {
    return undefined
  }
}

export const readSessionSizes = (root: string): Readonly<Record<string, AgentSize>> => readSessionSizesFile(root)?.agents ?? {}

export const writeSessionSizes = (root: string, sizes: SessionSizes): Effect.Effect<void, StoreError> =>
  writeFileAtomic(sessionSizesPath(root), `${JSON.stringify(sizes)}\n`)
