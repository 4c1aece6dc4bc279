/**
 * No function under actors/ or src/sessions/ is longer than MAX_FUNCTION_LINES lines (issue 23: the supervisor and the session procedures as small services, not
 * one closure). Every function counts (a declaration, an arrow, a generator such as an `Effect.gen` body or a
 * service's make) from its first line to its last, nested functions included, as oxlint's `max-lines-per-function`
 * counts them. The test lists every offender as `file:line: message`.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { assert, describe, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "../..")
const OXLINT = join(ROOT, "node_modules", ".bin", "oxlint")
export const MAX_FUNCTION_LINES = 150
/** The folders held to it. */
const HELD = ["actors", "src/sessions"]

/** The functions over `max` lines in `paths`, each as `file:line: message`, the file relative to `cwd`. */
const longFunctions = (cwd: string, paths: ReadonlyArray<string>, max: number): Array<string> => {
  const dir = mkdtempSync(join(tmpdir(), "orch-function-length-"))
  try {
    const config = join(dir, "oxlintrc.json")
    writeFileSync(
      config,
      JSON.stringify({
        categories: { correctness: "off" },
        rules: { "max-lines-per-function": ["error", { max, skipBlankLines: false, skipComments: false }] }
      })
    )
    const run = spawnSync(OXLINT, ["--config", config, "--format", "json", ...paths], { cwd, encoding: "utf8" })
    if (run.error !== undefined) throw run.error
    const report = JSON.parse(run.stdout) as {
      readonly diagnostics: ReadonlyArray<
        { readonly filename: string; readonly message: string; readonly labels: ReadonlyArray<{ readonly span: { readonly line: number } }> }
      >
    }
    return report.diagnostics.map((d) => `${relative(cwd, resolve(cwd, d.filename))}:${d.labels[0]?.span.line ?? "?"}: ${d.message}`).sort()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("function length (docs/architecture.md: small services)", () => {
  it("finds a function over the limit, a nested one too, and names where it is", () => {
    const dir = mkdtempSync(join(tmpdir(), "orch-function-length-case-"))
    try {
      const lines = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i}`).join("\n")
      writeFileSync(join(dir, "long.ts"), `export const short = () => {\n${lines(3)}\n}\n\nexport function long() {\n${lines(5)}\n}\n`)
      writeFileSync(join(dir, "nested.ts"), `export const outer = () => {\n  const inner = function*() {\n${lines(5)}\n  }\n  return inner\n}\n`)
      const found = longFunctions(dir, ["long.ts", "nested.ts"], 6)
      assert.strictEqual(found.length, 3, found.join("\n"))
      assert.match(found[0]!, /^long\.ts:7: /)
      assert.match(found[1]!, /^nested\.ts:1: /)
      assert.match(found[2]!, /^nested\.ts:2: /)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it(`no function under ${HELD.join(", ")}/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    assert.deepStrictEqual(longFunctions(ROOT, HELD, MAX_FUNCTION_LINES), [])
  })
})
