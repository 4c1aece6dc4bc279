/** Small file primitives with the guarantees the store needs: atomic replace, one-write append. */
import * as Effect from "effect/Effect"
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname } from "node:path"
import { crashPoint } from "./crash-points.ts"
export { readFrom } from "./read-from.ts"
import { errnoReason, StoreError } from "./errors.ts"

export const attempt = <A>(path: string, f: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({ try: f, catch: (cause) => new StoreError({ path, reason: errnoReason(cause) }) })

let counter = 0
/**
 * The write off the main thread to each file whose turn it is, so that this process's writes to one file land in
 * the order they were asked for. Like `counter` it belongs to the process (the file system is the process's), not
 * to any scope.
 */
const turns = new Map<string, Promise<void>>()

/**
 * How a whole-file write is made. `durable: false`: no fsync (a write a power cut may lose, because recovery redoes
 * it). `offThread: true`: the write and its fsync run in Node's thread pool while the process goes on with other
 * work, for a write on a path whose caller waits for it anyway (a spawn's); the others stay synchronous, so that a
 * loop on the TestClock has written what it wrote by the time the clock has moved. A write to a file with an
 * off-thread write in flight waits its turn either way.
 */
export interface WriteOptions {
  readonly durable?: boolean
  readonly offThread?: boolean
}

const tmpBeside = (path: string) => {
  mkdirSync(dirname(path), { recursive: true })
  return `${path}.${process.pid}.${counter++}.tmp`
}

const writeBesideSync = (path: string, text: string, durable: boolean): string => {
  const tmp = tmpBeside(path)
  try {
    const fd = openSync(tmp, "w", 0o644)
    try {
      writeSync(fd, text)
      if (durable) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    rmSync(tmp, { force: true })
    throw error
  }
  return tmp
}

const writeBeside = async (path: string, text: string, durable: boolean): Promise<string> => {
  const tmp = tmpBeside(path)
  try {
    // Loaded on the first such write: node:fs/promises brings streams and readline, which a command that only reads
    // (`orch status`) would load for nothing.
    const { open } = await import("node:fs/promises")
    const file = await open(tmp, "w", 0o644)
    try {
      await file.writeFile(text)
      if (durable) await file.sync()
    } finally {
      await file.close()
    }
  } catch (error) {
    rmSync(tmp, { force: true })
    throw error
  }
  return tmp
}

const renameInPlace = (tmp: string, path: string) => {
  try {
    crashPoint(`rename ${basename(path)}: before`)
    renameSync(tmp, path)
    crashPoint(`rename ${basename(path)}: after`)
  } catch (error) {
    rmSync(tmp, { force: true })
    throw error
  }
}

/**
 * Runs `write` once this process's earlier off-thread writes to `path` are done. Not interruptible: like a
 * synchronous write it happens whole or not at all, and never after whoever asked for it has gone on.
 */
const inTurn = <A>(path: string, write: () => Promise<A>): Effect.Effect<A, StoreError> =>
  Effect.uninterruptible(Effect.tryPromise({
    try: () => {
      const mine = (turns.get(path) ?? Promise.resolve()).then(write)
      const settled = mine.then(() => undefined, () => undefined)
      turns.set(path, settled)
      void settled.then(() => {
        if (turns.get(path) === settled) turns.delete(path)
      })
      return mine
    },
    catch: (cause) => new StoreError({ path, reason: errnoReason(cause) })
  }))

/** `text` beside `path` (its temporary name), as `options` say: in this thread, or in the pool in its turn. */
const written = (path: string, text: string, options: WriteOptions): Effect.Effect<string, StoreError> =>
  options.offThread === true || turns.has(path)
    ? inTurn(path, () => writeBeside(path, text, options.durable !== false))
    : attempt(path, () => writeBesideSync(path, text, options.durable !== false))

/** A file written to its temporary name and on the disk, not yet in place: `commit` renames it there, `discard` drops it. */
export interface StagedFile {
  readonly commit: Effect.Effect<void, StoreError>
  readonly discard: Effect.Effect<void>
}

/**
 * The first half of writeFileAtomic: `text` written beside `path` (and fsynced unless `durable: false`), so that
 * the slow part of a write can run while something else decides whether it takes effect.
 */
export const stageFileAtomic = (path: string, text: string, options: WriteOptions = {}): Effect.Effect<StagedFile, StoreError> =>
  Effect.map(written(path, text, options), (tmp) => ({
    commit: attempt(path, () => renameInPlace(tmp, path)),
    discard: Effect.sync(() => rmSync(tmp, { force: true }))
  }))

/**
 * Replaces `path` with `text` so that a reader sees either the old or the new content, never a mix. The text reaches
 * the disk before the rename (fsync), unless `durable: false` says a write lost to a power cut costs nothing.
 */
export const writeFileAtomic = (path: string, text: string, options: WriteOptions = {}): Effect.Effect<void, StoreError> =>
  options.offThread === true || turns.has(path)
    ? inTurn(path, async () => renameInPlace(await writeBeside(path, text, options.durable !== false), path))
    : attempt(path, () => renameInPlace(writeBesideSync(path, text, options.durable !== false), path))

/** Appends one line with a single write (O_APPEND), so concurrent writers never interleave within a line. */
export const appendLine = (path: string, line: string): Effect.Effect<void, StoreError> =>
  attempt(path, () => {
    mkdirSync(dirname(path), { recursive: true })
    appendFileSync(path, `${line}\n`)
  })
