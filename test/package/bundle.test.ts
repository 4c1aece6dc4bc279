/**
 * The built command tree (the global setup builds dist/). V8 holds a script's source for as long as its process
 * runs; one character outside Latin-1 anywhere in it would make all of it a two-byte string, twice the memory.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { assert, describe, it } from "vitest"

const bundle = resolve(import.meta.dirname, "../../dist/cli.cjs")

describe("dist/cli.cjs", () => {
  it("is ASCII: the screen parsers' characters are escaped, in their regular expressions too", () => {
    const text = readFileSync(bundle, "utf8")
    const outside = text.match(/[^\x00-\x7f]/gu) ?? []
    assert.deepStrictEqual(outside, [])
    // What the parsers match is still there, as escapes: the Codex prompt's `›` and Claude Code's `❯`.
    assert.include(text, "\\u203a")
    assert.include(text, "\\u276f")
  })
})
