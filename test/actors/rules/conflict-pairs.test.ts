import { assert, describe, it } from "@effect/vitest"
import {
  changesBetween,
  type ConflictCache,
  laterToMerge,
  mergeKey,
  mergesToRun,
  predictionsOf,
  type ProjectHeads,
  pruneCache,
  type SideFiles,
  sidesKey,
  sidesToRead
} from "../../../actors/rules/conflict-pairs.ts"
import type { ConflictPrediction } from "../../../src/domain/conflict.ts"

const heads = (sessions: Record<string, string>, main = "m1"): ProjectHeads => ({
  projectId: "app",
  defaultBranch: { branch: "main", head: main },
  sessions: Object.entries(sessions).map(([sessionId, head]) => ({ sessionId, branch: `feat/${sessionId}`, head }))
})

const cacheOf = (
  sides: Record<string, SideFiles>,
  merges: Record<string, ReadonlyArray<string>> = {},
  main = "m1"
): ConflictCache => ({
  sides: new Map(Object.entries(sides).map(([head, files]) => [sidesKey(main, head), files])),
  merges: new Map(Object.entries(merges).map(([key, conflicted]) => [key, { conflicted }]))
})

const own = (...files: Array<string>): SideFiles => ({ own: files, base: [] })

describe("sidesToRead: only heads not read against this default head", () => {
  it.each<[string, ProjectHeads, ConflictCache, Array<string>]>([
    ["nothing read yet: every session", heads({ "app-1": "a1", "app-2": "b1" }), cacheOf({}), ["app-1", "app-2"]],
    ["both read: none", heads({ "app-1": "a1", "app-2": "b1" }), cacheOf({ a1: own("x"), b1: own("y") }), []],
    ["app-2 pushed: app-2 only", heads({ "app-1": "a1", "app-2": "b2" }), cacheOf({ a1: own("x"), b1: own("y") }), ["app-2"]],
    ["the default branch moved: every session", heads({ "app-1": "a1", "app-2": "b1" }, "m2"), cacheOf({ a1: own("x"), b1: own("y") }), ["app-1", "app-2"]]
  ])("%s", (_, h, cache, expected) => {
    assert.deepStrictEqual(sidesToRead(h, cache).map((s) => s.sessionId), expected)
  })
})

describe("mergesToRun: only pairs that share a file, once per pair of heads", () => {
  it.each<[string, ProjectHeads, ConflictCache, Array<string>]>([
    ["no file in common: no merge", heads({ "app-1": "a1", "app-2": "b1" }), cacheOf({ a1: own("x"), b1: own("y") }), []],
    ["a file in common: that pair", heads({ "app-1": "a1", "app-2": "b1" }), cacheOf({ a1: own("x", "z"), b1: own("z") }), [mergeKey("a1", "b1")]],
    [
      "already merged for these heads: none",
      heads({ "app-1": "a1", "app-2": "b1" }),
      cacheOf({ a1: own("z"), b1: own("z") }, { [mergeKey("a1", "b1")]: [] }),
      []
    ],
    [
      "app-2 pushed: its pairs only, not app-1 with app-3",
      heads({ "app-1": "a1", "app-2": "b2", "app-3": "c1" }),
      cacheOf({ a1: own("z"), b2: own("z"), c1: own("z") }, { [mergeKey("a1", "b1")]: [], [mergeKey("a1", "c1")]: [], [mergeKey("b1", "c1")]: [] }),
      [mergeKey("a1", "b2"), mergeKey("b2", "c1")]
    ],
    [
      "a file the default branch also changed: the session with the default branch",
      heads({ "app-1": "a1" }),
      cacheOf({ a1: { own: ["README.md"], base: ["README.md", "other"] } }),
      [mergeKey("a1", "m1")]
    ],
    ["two sessions on one commit: never merged with each other", heads({ "app-1": "a1", "app-2": "a1" }), cacheOf({ a1: own("z") }), []],
    [
      "one built on the other (rebased onto it): not compared",
      heads({ "app-1": "a1", "app-2": "b1" }),
      cacheOf({ a1: { own: ["z"], base: [], commits: ["a1"] }, b1: { own: ["z", "y"], base: [], commits: ["b1", "a1"] } }),
      []
    ],
    ["a session whose files are not read yet: left out", heads({ "app-1": "a1", "app-2": "b1" }), cacheOf({ a1: own("z") }), []]
  ])("%s", (_, h, cache, expected) => {
    assert.deepStrictEqual(mergesToRun(h, cache).map((c) => c.key), expected)
  })

  it("with 20 sessions, one push costs merges only with the sessions that share its files", () => {
    const sessions = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`app-${i}`, `h${i}`]))
    const sides = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`h${i}`, own(`f${i % 5}`)]))
    const all = heads(sessions)
    const first = mergesToRun(all, cacheOf(sides))
    // 5 groups of 4 sessions sharing a file: 6 pairs each.
    assert.strictEqual(first.length, 30)
    const merged = cacheOf({ ...sides, h3x: own("f3") }, Object.fromEntries(first.map((c) => [c.key, []])))
    const pushed = heads({ ...sessions, "app-3": "h3x" })
    assert.strictEqual(mergesToRun(pushed, merged).length, 3)
  })
})

describe("predictionsOf", () => {
  it.each<[string, ProjectHeads, ConflictCache, Array<Pick<ConflictPrediction, "kind" | "files"> & { pair: string }>]>([
    [
      "a textual conflict: its conflicted files",
      heads({ "app-1": "a1", "app-2": "b1" }),
      cacheOf({ a1: own("x", "z"), b1: own("x", "z") }, { [mergeKey("a1", "b1")]: ["z"] }),
      [{ pair: "app-1|app-2", kind: "conflict", files: ["z"] }]
    ],
    [
      "shared files that merge cleanly: an overlap with them",
      heads({ "app-1": "a1", "app-2": "b1" }),
      cacheOf({ a1: own("x", "z"), b1: own("z", "x", "y") }, { [mergeKey("a1", "b1")]: [] }),
      [{ pair: "app-1|app-2", kind: "overlap", files: ["x", "z"] }]
    ],
    [
      "with the default branch",
      heads({ "app-1": "a1" }),
      cacheOf({ a1: { own: ["README.md"], base: ["README.md"] } }, { [mergeKey("a1", "m1")]: ["README.md"] }),
      [{ pair: "app-1|main", kind: "conflict", files: ["README.md"] }]
    ],
    ["no merge outcome yet: nothing predicted", heads({ "app-1": "a1", "app-2": "b1" }), cacheOf({ a1: own("z"), b1: own("z") }), []]
  ])("%s", (_, h, cache, expected) => {
    assert.deepStrictEqual(
      predictionsOf(h, cache).map((p) => ({ pair: `${p.a.sessionId}|${p.b.sessionId ?? p.b.branch}`, kind: p.kind, files: p.files })),
      expected
    )
  })

  it("pruneCache keeps only what the current heads use", () => {
    const cache = cacheOf({ a1: own("z"), a0: own("z"), b1: own("z") }, { [mergeKey("a1", "b1")]: [], [mergeKey("a0", "b1")]: ["z"] })
    const pruned = pruneCache([heads({ "app-1": "a1", "app-2": "b1" })], cache)
    assert.deepStrictEqual([...pruned.sides.keys()], [sidesKey("m1", "a1"), sidesKey("m1", "b1")])
    assert.deepStrictEqual([...pruned.merges.keys()], [mergeKey("a1", "b1")])
  })
})

const prediction = (b: string, kind: "conflict" | "overlap", files: Array<string>, heads: [string, string] = ["a1", "b1"]): ConflictPrediction => ({
  projectId: "app",
  a: { sessionId: "app-1", branch: "feat/app-1", head: heads[0] },
  b: b === "main" ? { branch: "main", head: heads[1] } : { sessionId: b, branch: `feat/${b}`, head: heads[1] },
  kind,
  files
})

describe("changesBetween", () => {
  const live = new Set(["app-1", "app-2", "app-3"])
  it.each<[string, Array<ConflictPrediction>, Array<ConflictPrediction>, ReadonlySet<string>, { predicted: number; cleared: Array<string> }]>([
    ["nothing before, a conflict now: predicted", [], [prediction("app-2", "conflict", ["z"])], live, { predicted: 1, cleared: [] }],
    ["the same again: nothing", [prediction("app-2", "conflict", ["z"])], [prediction("app-2", "conflict", ["z"])], live, { predicted: 0, cleared: [] }],
    [
      "a session pushed, still in conflict: predicted again",
      [prediction("app-2", "conflict", ["z"])],
      [prediction("app-2", "conflict", ["z"], ["a2", "b1"])],
      live,
      {
        predicted: 1,
        cleared: []
      }
    ],
    [
      "a conflict became an overlap: predicted (overlap), not cleared",
      [prediction("app-2", "conflict", ["z"])],
      [prediction("app-2", "overlap", ["z"])],
      live,
      {
        predicted: 1,
        cleared: []
      }
    ],
    ["gone after a rebase: cleared, resolved", [prediction("app-2", "conflict", ["z"])], [], live, { predicted: 0, cleared: ["resolved"] }],
    ["gone with its session: cleared, ended", [prediction("app-2", "conflict", ["z"])], [], new Set(["app-1"]), { predicted: 0, cleared: ["ended"] }],
    [
      "the default branch moved on, same conflict: nothing",
      [prediction("main", "conflict", ["z"], ["a1", "m1"])],
      [prediction("main", "conflict", ["z"], ["a1", "m2"])],
      live,
      {
        predicted: 0,
        cleared: []
      }
    ],
    [
      "the default branch moved on, other files: predicted",
      [prediction("main", "conflict", ["z"], ["a1", "m1"])],
      [
        prediction("main", "conflict", ["y", "z"], ["a1", "m2"])
      ],
      live,
      { predicted: 1, cleared: [] }
    ]
  ])("%s", (_, before, after, liveNow, expected) => {
    const changes = changesBetween(before, after, liveNow)
    assert.deepStrictEqual({ predicted: changes.predicted.length, cleared: changes.cleared.map((c) => c.reason) }, expected)
  })
})

describe("laterToMerge: who is told", () => {
  it.each<[string, Parameters<typeof laterToMerge>[0], Parameters<typeof laterToMerge>[1], string]>([
    ["the one without a PR", { sessionId: "app-1", createdAt: "2026-01-01" }, { sessionId: "app-2", prNumber: 4, createdAt: "2026-01-02" }, "app-1"],
    [
      "of two PRs, the later opened",
      { sessionId: "app-1", prNumber: 9, createdAt: "2026-01-01" },
      { sessionId: "app-2", prNumber: 4, createdAt: "2026-01-02" },
      "app-1"
    ],
    ["of two without PRs, the one made later", { sessionId: "app-1", createdAt: "2026-01-01" }, { sessionId: "app-2", createdAt: "2026-01-02" }, "app-2"],
    ["made at once: the higher id", { sessionId: "app-3", createdAt: "2026-01-01" }, { sessionId: "app-2", createdAt: "2026-01-01" }, "app-3"],
    ["with the default branch: the session", { sessionId: "app-1", prNumber: 2, createdAt: "2026-01-01" }, undefined, "app-1"]
  ])("%s", (_, a, b, expected) => {
    assert.strictEqual(laterToMerge(a, b), expected)
  })
})
