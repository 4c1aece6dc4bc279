/**
 * `config-state.json`: how the running supervisor's config file stands (the one it follows, whether its newest
 * content was applied, what waits for a restart), so `orch status`, which reads files only, can tell. Written
 * atomically by the supervisor; a file whose pid is not the running supervisor's says nothing.
 */
import * as Schema from "effect/Schema"
import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { writeFileAtomic } from "./files.ts"

export const ConfigState = Schema.Struct({
  /** The supervisor that wrote it. */
  pid: Schema.Int,
  /** The config file it follows. */
  file: Schema.String,
  /** When the config in force was loaded: at start, or by the last reload that applied one (ISO 8601). */
  appliedAt: Schema.String,
  /** The file's newest content was not applied: since when (the first rejection after the last apply), and why. */
  rejected: Schema.optionalKey(Schema.Struct({
    since: Schema.String,
    problem: Schema.String,
    location: Schema.optionalKey(Schema.String)
  })),
  /** Settings whose new value in the file waits for a restart, and since when. */
  restartNeeded: Schema.optionalKey(Schema.Struct({ since: Schema.String, settings: Schema.Array(Schema.String) })),
  /** The file is not watched (its directory cannot be): edits go unseen until the watch works again. */
  unwatched: Schema.optionalKey(Schema.Struct({ since: Schema.String, reason: Schema.String }))
})
export type ConfigState = typeof ConfigState.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(ConfigState))
const encode = Schema.encodeSync(ConfigState)

export const configStatePath = (root: string) => join(root, "config-state.json")

/** The state, if the file is there and reads as one. */
export const readConfigState = (root: string): ConfigState | undefined => {
  let text: string
  try {
    text = readFileSync(configStatePath(root), "utf8")
  } catch {
    return undefined
  }
  const state = decode(text)
  return state._tag === "Some" ? state.value : undefined
}

export const writeConfigState = (root: string, state: ConfigState) => writeFileAtomic(configStatePath(root), `${JSON.stringify(encode(state), null, 2)}\n`)

/** Removes the file, but only if it is still this process's. */
export const removeConfigState = (root: string, pid: number) => {
  if (readConfigState(root)?.pid === pid) rmSync(configStatePath(root), { force: true })
}
