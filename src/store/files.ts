/** Small synchronous file primitives with the guarantees the store needs: atomic replace, one-write append. */
import * as Effect from "effect/Effect"
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname } from "node:path"
import { crashPoint } from "./crash-points.ts"
import { errnoReason, StoreError } from "./errors.ts"

export const attempt = <A>(path: string, f: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({ try: f, catch: (cause) => new StoreError({ path, reason: errnoReason(cause) }) })

let counter = 0

/** Replaces `path` with `text` so that a reader sees either the old or the new content, never a mix. */
export const writeFileAtomic = (path: string, text: string): Effect.Effect<void, StoreError> =>
  attempt(path, () => {
    mkdirSync(dirname(path), { recursive: true })
    const tmp = `${path}.${process.pid}.${counter++}.tmp`
    try {
      const fd = openSync(tmp, "w", 0o644)
      try {
        writeSync(fd, text)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      crashPoint(`rename ${basename(path)}: before`)
      renameSync(tmp, path)
      crashPoint(`rename ${basename(path)}: after`)
    } catch (error) {
      rmSync(tmp, { force: true })
      throw error
    }
  })

/** Appends one line with a single write (O_APPEND), so concurrent writers never interleave within a line. */
export const appendLine = (path: string, line: string): Effect.Effect<void, StoreError> =>
  attempt(path, () => {
    mkdirSync(dirname(path), { recursive: true })
    appendFileSync(path, `${line}\n`)
  })
