/**
 * The atomic replace (src/store/files.ts): a write may run off the main thread (`offThread`), so this process's
 * writes to one file, off-thread or not, must still land in the order they were asked for, and a failed write must
 * not hold up the next.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stageFileAtomic, writeFileAtomic } from "../../src/store/files.ts"
import { tempDir } from "../support/host.ts"

describe("writing a file whole", () => {
  it.live("fifty writes to one file asked for at once, most off the main thread, land in order: the last asked for stays", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-files-")
      const path = join(dir, "state.json")
      // Longer texts first: each later write has less to put on the disk, so it would finish first if it could.
      const texts = Array.from({ length: 50 }, (_, i) => `${i}\n${"x".repeat((50 - i) * 20_000)}`)
      yield* Effect.forEach(texts, (text, i) => writeFileAtomic(path, text, { durable: i % 2 === 0, offThread: i % 5 !== 4 }), { concurrency: "unbounded" })
      assert.strictEqual(readFileSync(path, "utf8").split("\n")[0], "49")
      assert.deepStrictEqual(readdirSync(dir), ["state.json"], "no temporary file left")
    }))

  it.live("a write that fails says why and does not hold up the next write to the same file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-files-")
      // A file where the directory should be: the write cannot be made (as root too).
      const parent = join(dir, "parent")
      writeFileSync(parent, "")
      const path = join(parent, "state.json")
      const failed = yield* Effect.flip(writeFileAtomic(path, "one", { offThread: true }))
      assert.strictEqual(failed._tag, "StoreError")
      assert.include(failed.message, path)
      rmSync(parent)
      mkdirSync(parent)
      yield* writeFileAtomic(path, "two", { offThread: true })
      assert.strictEqual(readFileSync(path, "utf8"), "two")
    }))

  it.live("a staged write takes effect only when committed, and a discarded one leaves nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("orch-files-")
      const path = join(dir, "record.json")
      yield* writeFileAtomic(path, "before")
      const kept = yield* stageFileAtomic(path, "after", { offThread: true })
      assert.strictEqual(readFileSync(path, "utf8"), "before")
      yield* kept.commit
      assert.strictEqual(readFileSync(path, "utf8"), "after")
      const dropped = yield* stageFileAtomic(path, "never")
      yield* dropped.discard
      assert.strictEqual(readFileSync(path, "utf8"), "after")
      assert.deepStrictEqual(readdirSync(dir), ["record.json"])
    }))
})
