import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const MODULE = new URL("../../src/cli/young-generation.ts", import.meta.url).pathname

/**
 * The young generation's size (MB) in a fresh Node process once a burst is over: a burst whose objects outlive
 * several collections (the batches of the last 20 rounds are kept), then a full collection, with or without the
 * supervisor's setting first. While old objects are being marked V8 lets the young generation run over its size for a
 * while, in either case; what stays after is the size it grew to.
 */
const youngGenerationAfterBurst = (bounded: boolean): number => {
  const dir = mkdtempSync(join(tmpdir(), "orch-young-"))
  try {
    const script = join(dir, "burst.mjs")
    writeFileSync(
      script,
      [
        `import { getHeapSpaceStatistics } from "node:v8"`,
        bounded ? `import { keepYoungGenerationSmall } from ${JSON.stringify(MODULE)}` : "",
        bounded ? "keepYoungGenerationSmall()" : "",
        "const kept = []",
        "for (let round = 0; round < 300; round++) {",
        "  kept.push(Array.from({ length: 5000 }, (_, i) => ({ i, text: `${'x'.repeat(20)}${i}` })))",
        "  if (kept.length > 20) kept.shift()",
        "  await new Promise((resolve) => setImmediate(resolve))",
        "}",
        "kept.length = 0",
        "globalThis.gc()",
        `console.log(getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size / 1024 / 1024)`
      ].join("\n")
    )
    return Number(execFileSync(process.execPath, ["--expose-gc", script], { encoding: "utf8" }).trim())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the supervisor's young generation", () => {
  it("is back at its first size after a burst, where V8 otherwise keeps it grown to tens of megabytes", () => {
    const grown = youngGenerationAfterBurst(false)
    const kept = youngGenerationAfterBurst(true)
    assert.isAtLeast(grown, 32, `without the setting the burst left the young generation at ${grown} MB only: this test proves nothing`)
    assert.isAtMost(kept, 4, `the burst left the young generation at ${kept} MB`)
  })
})
