/** Small synchronous file primitives with the guarantees the store needs: atomic replace, one-write append. */
import * as Effect from "effect/Effect"
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname } from "node:path"
import { crashPoint } from "./crash-points.ts"
export { readFrom } from "./read-from.ts"
import { errnoReason, StoreError } from "./errors.ts"

export const attempt = <A>(path: string, f: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({ try: f, catch: (cause) => new StoreError({ path, reason: errnoReason(cause) }) })

let counter = 0

/** A file written to its temporary name and on the disk, not yet in place: `commit` renames it there, `discard` drops it. */
export interface StagedFile {
  readonly commit: Effect.Effect<void, StoreError>
  readonly discard: Effect.Effect<void>
}

/**
 * The first half of writeFileAtomic: `text` written beside `path` (and fsynced unless `durable: false`), so that
 * the slow part of a write can run while something else decides whether it takes effect.
 */
export const stageFileAtomic = (path: string, text: string, options: { readonly durable?: boolean } = {}): Effect.Effect<StagedFile, StoreError> =>
  attempt(path, () => {
    mkdirSync(dirname(path), { recursive: true })
    const tmp = `${path}.${process.pid}.${counter++}.tmp`
    try {
      const fd = openSync(tmp, "w", 0o644)
      try {
        writeSync(fd, text)
        if (options.durable !== false) fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } catch (error) {
      rmSync(tmp, { force: true })
      throw error
    }
    return {
      commit: attempt(path, () => {
        try {
          crashPoint(`rename ${basename(path)}: before`)
          renameSync(tmp, path)
          crashPoint(`rename ${basename(path)}: after`)
        } catch (error) {
          rmSync(tmp, { force: true })
          throw error
        }
      }),
      discard: Effect.sync(() => rmSync(tmp, { force: true }))
    }
  })

/**
 * Replaces `path` with `text` so that a reader sees either the old or the new content, never a mix. The text reaches
 * the disk before the rename (fsync), unless `durable: false` says a write lost to a power cut costs nothing (one
 * that only clears what recovery would redo anyway).
 */
export const writeFileAtomic = (path: string, text: string, options: { readonly durable?: boolean } = {}): Effect.Effect<void, StoreError> =>
  Effect.flatMap(stageFileAtomic(path, text, options), (staged) => staged.commit)

/** Appends one line with a single write (O_APPEND), so concurrent writers never interleave within a line. */
export const appendLine = (path: string, line: string): Effect.Effect<void, StoreError> =>
  attempt(path, () => {
    mkdirSync(dirname(path), { recursive: true })
    appendFileSync(path, `${line}\n`)
  })
