/** A file orch writes whole, read back: absent is the value given for it; one that does not decode says what to do. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readJsonFile } from "../../src/store/json-file.ts"

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.Struct({ items: Schema.Array(Schema.String) })))
const options = { missing: { items: [] }, whenUnreadable: "move it away" }

describe("readJsonFile", () => {
  it.effect("absent, whole, not orch's, and not a file", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "orch-json-file-"))
      const path = join(dir, "things.json")
      assert.deepStrictEqual(yield* readJsonFile(path, decode, options), { items: [] })
      writeFileSync(path, JSON.stringify({ items: ["a"] }))
      assert.deepStrictEqual(yield* readJsonFile(path, decode, options), { items: ["a"] })
      writeFileSync(path, JSON.stringify({ items: [1] }))
      const wrong = yield* Effect.flip(readJsonFile(path, decode, options))
      assert.match(wrong.message, /not what orch writes: .*; move it away/)
      assert.include(wrong.message, path)
      assert.deepStrictEqual(yield* readJsonFile(join(path, "inside"), decode, options), { items: [] }, "a path through a file is absent")
    }))
})
