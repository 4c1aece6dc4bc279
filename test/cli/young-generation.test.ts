import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const MODULE = new URL("../../src/cli/young-generation.ts", import.meta.url).pathname

/**
 * The largest the young generation grows (MB) in a fresh Node process through a burst whose objects outlive several
 * collections (the batches of the last 20 rounds are kept), with or without the supervisor's setting first.
 */
const youngGenerationThroughBurst = (bounded: boolean): number => {
  const dir = mkdtempSync(join(tmpdir(), "orch-young-"))
  try {
    const script = join(dir, "burst.mjs")
    writeFileSync(
      script,
      [
        `import { getHeapSpaceStatistics } from "node:v8"`,
        bounded ? `import { keepYoungGenerationSmall } from ${JSON.stringify(MODULE)}` : "",
        bounded ? "keepYoungGenerationSmall()" : "",
        `const young = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size`,
        "let largest = young()",
        "const kept = []",
        "for (let round = 0; round < 300; round++) {",
        "  kept.push(Array.from({ length: 5000 }, (_, i) => ({ i, text: `${'x'.repeat(20)}${i}` })))",
        "  if (kept.length > 20) kept.shift()",
        "  largest = Math.max(largest, young())",
        "  await new Promise((resolve) => setImmediate(resolve))",
        "}",
        "console.log(largest / 1024 / 1024)"
      ].join("\n")
    )
    return Number(execFileSync(process.execPath, [script], { encoding: "utf8" }).trim())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the supervisor's young generation", () => {
  it("stays near its first size through a burst that makes V8 grow it to tens of megabytes otherwise", () => {
    const grown = youngGenerationThroughBurst(false)
    const kept = youngGenerationThroughBurst(true)
    // Without the setting V8 doubles it to 64 MB or more here; with it, it stays within a few pages of its first size.
    assert.isAtLeast(grown, 32, `without the setting the burst grew the young generation to ${grown} MB only: the test proves nothing`)
    assert.isAtMost(kept, 16, `the young generation grew to ${kept} MB`)
  })
})
