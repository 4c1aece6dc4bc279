import { assert, describe, expect, it } from "@effect/vitest"
import { measurable, nextSizes, parsePs, SIZE_FALL_WEIGHT, treeRssOf } from "../../src/domain/session-size.ts"

const MB = 1024 ** 2
// pid ppid rss(KiB): 10 is an agent's shell with two children, one of which has a child; 20 is another tree.
const PS = ["    1     0  1000", "   10     1  2048", "   11    10 10240", "   12    10  1024", "   13    11   512", "   20     1  4096", "junk line", ""].join(
  "\n"
)

describe("session sizes", () => {
  it("parsePs reads pid, ppid and rss (KiB), and leaves out what is not three numbers", () => {
    assert.deepStrictEqual(parsePs(PS).map((row) => row.pid), [1, 10, 11, 12, 13, 20])
    assert.deepStrictEqual(parsePs(PS)[1], { pid: 10, ppid: 1, rssBytes: 2048 * 1024 })
  })

  it.each<[string, number, number | undefined]>([
    ["a tree: the root and every descendant", 10, (2048 + 10240 + 1024 + 512) * 1024],
    ["a subtree", 11, (10240 + 512) * 1024],
    ["a leaf", 20, 4096 * 1024],
    ["a root that is not running", 99, undefined]
  ])("treeRssOf: %s", (_name, root, expected) => {
    assert.strictEqual(treeRssOf(parsePs(PS))(root), expected)
  })

  it("treeRssOf: one index of a reading measures each of its trees, and a loop in the rows ends", () => {
    const treeRss = treeRssOf(parsePs(PS))
    assert.deepStrictEqual([10, 20, 1].map(treeRss), [(2048 + 10240 + 1024 + 512) * 1024, 4096 * 1024, (1000 + 2048 + 10240 + 1024 + 512 + 4096) * 1024])
    // pid 5's parent is 6 and 6's is 5 (a reading taken while pids were reused): each is counted once.
    assert.strictEqual(treeRssOf(parsePs("    5     6   100\n    6     5   200"))(5), 300 * 1024)
  })

  it.each<[string, Parameters<typeof nextSizes>[0], Parameters<typeof nextSizes>[1], ReturnType<typeof nextSizes>]>([
    ["the first sample is the figure", {}, [{ agent: "claude-code", bytes: 500 * MB }], { "claude-code": { bytes: 500 * MB, rounds: 1 } }],
    [
      "the largest session of the round counts",
      {},
      [{ agent: "codex", bytes: 200 * MB }, { agent: "codex", bytes: 300 * MB }],
      { codex: { bytes: 300 * MB, rounds: 1 } }
    ],
    ["a new high counts at once", { codex: { bytes: 300 * MB, rounds: 4 } }, [{ agent: "codex", bytes: 900 * MB }], { codex: { bytes: 900 * MB, rounds: 5 } }],
    [
      "a lower one moves it part of the way",
      { codex: { bytes: 1000 * MB, rounds: 4 } },
      [{ agent: "codex", bytes: 500 * MB }],
      { codex: { bytes: Math.round(1000 * MB - 500 * MB * SIZE_FALL_WEIGHT), rounds: 5 } }
    ],
    [
      "an agent without a sample keeps its figure",
      { aider: { bytes: 100 * MB, rounds: 2 } },
      [{ agent: "codex", bytes: 50 * MB }],
      { aider: { bytes: 100 * MB, rounds: 2 }, codex: { bytes: 50 * MB, rounds: 1 } }
    ]
  ])("nextSizes: %s", (_name, previous, samples, expected) => {
    assert.deepStrictEqual(nextSizes(previous, samples), expected)
  })
})

describe("measurable", () => {
  const at = Date.parse("2026-11-26T12:00:00.000Z")
  it.each<[string, { role?: string; createdAt: string }, boolean]>([
    ["a worker that has run a minute", { createdAt: new Date(at - 60_000).toISOString() }, true],
    ["a worker a moment younger: not grown yet", { createdAt: new Date(at - 59_999).toISOString() }, false],
    ["an orchestrator session: other work, not admitted", { role: "orchestrator", createdAt: new Date(at - 3_600_000).toISOString() }, false]
  ])("%s", (_, record, expected) => expect(measurable(record, at)).toBe(expected))
})
