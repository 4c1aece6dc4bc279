/**
 * Noticing changes to the config file on a real file system (src/config/watch.ts): written in place, replaced
 * by a rename (a new inode, as editors save), deleted and made again. Other files beside it are not changes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { watchConfigFile } from "../../src/config/watch.ts"
import { eventually } from "../support/eventually.ts"
import { tempDir } from "../support/host.ts"

describe("watchConfigFile", () => {
  it.live("one look when set up, then one for each kind of save; the neighbours' changes are not the file's", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const file = join(dir, "orchestrator.yaml")
      writeFileSync(file, "projects: {}\n")
      let seen = 0
      yield* watchConfigFile(file).pipe(Stream.runForEach(() => Effect.sync(() => void seen++)), Effect.forkScoped)
      yield* eventually("the first look", () => seen === 1)

      const saves: ReadonlyArray<[string, () => void]> = [
        ["written in place", () => writeFileSync(file, "projects: {a: 1}\n")],
        ["replaced by a rename", () => {
          writeFileSync(join(dir, ".orchestrator.yaml.swp"), "projects: {b: 1}\n")
          renameSync(join(dir, ".orchestrator.yaml.swp"), file)
        }],
        ["deleted", () => rmSync(file)],
        ["made again", () => writeFileSync(file, "projects: {}\n")]
      ]
      for (const [what, save] of saves) {
        const before = seen
        save()
        yield* eventually(`a change after the file was ${what}`, () => seen > before)
      }
      // Ten writes to a neighbour, then one save by rename: the watch reports in order, so once the save is seen
      // the neighbour's writes would have been too; only the rename onto the file counts.
      const before = seen
      for (let i = 0; i < 10; i++) writeFileSync(join(dir, "notes.txt"), `${i}`)
      writeFileSync(join(dir, ".orchestrator.yaml.swp"), "projects: {c: 1}\n")
      renameSync(join(dir, ".orchestrator.yaml.swp"), file)
      yield* eventually("the save by rename", () => seen > before)
      assert.strictEqual(seen, before + 1, "writes to other files in the directory are not changes to the config")
    }).pipe(Effect.scoped))

  it.live("a directory that cannot be watched fails the stream with the reason", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const error = yield* watchConfigFile(join(dir, "gone", "orchestrator.yaml")).pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(error._tag, "ConfigWatchFailed")
      assert.strictEqual(error.reason, "ENOENT")
      assert.include(error.message, "cannot watch")
    }))
})
