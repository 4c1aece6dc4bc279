/** Predicted conflicts in `orch status`: a line per pair (conflicts first), each live session's `conflicts` in --json, conflicts.json read back. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { conflictLines, livePredictions, withConflicts } from "../../src/cli/conflicts-view.ts"
import type { ConflictPrediction } from "../../src/domain/conflict.ts"
import { conflictsPath, readConflicts, writeConflicts } from "../../src/store/conflicts-file.ts"

const side = (sessionId: string) => ({ sessionId, branch: `feat/${sessionId}`, head: `${sessionId}-head` })
const main = { branch: "main", head: "m1" }
const predictions: Array<ConflictPrediction> = [
  { projectId: "app", a: side("app-1"), b: main, kind: "overlap", files: ["README.md"] },
  { projectId: "app", a: side("app-1"), b: side("app-2"), kind: "conflict", files: ["src/a.ts", "src/b.ts"] },
  { projectId: "app", a: side("app-2"), b: side("app-3"), kind: "conflict", files: ["src/c.ts"] }
]

describe("predicted conflicts in orch status", () => {
  it("a line per pair, conflicts first; pairs with an ended session left out", () => {
    assert.deepStrictEqual(conflictLines(livePredictions(predictions, new Set(["app-1", "app-2"]))), [
      "conflict predicted: app-1 ↔ app-2 in src/a.ts, src/b.ts",
      "overlap: app-1 ↔ main in README.md (merges cleanly)"
    ])
  })

  it("--json: each session's conflicts from its side; none, no field", () => {
    assert.deepStrictEqual(withConflicts({ sessionId: "app-2" }, predictions), {
      sessionId: "app-2",
      conflicts: [
        { with: "app-1", kind: "conflict", files: ["src/a.ts", "src/b.ts"] },
        { with: "app-3", kind: "conflict", files: ["src/c.ts"] }
      ]
    })
    assert.deepStrictEqual(withConflicts({ sessionId: "app-1" }, predictions), {
      sessionId: "app-1",
      conflicts: [
        { with: "main", defaultBranch: true, kind: "overlap", files: ["README.md"] },
        { with: "app-2", kind: "conflict", files: ["src/a.ts", "src/b.ts"] }
      ]
    })
    assert.deepStrictEqual(withConflicts({ sessionId: "app-9" }, predictions), { sessionId: "app-9" })
  })

  it.effect("conflicts.json: absent is none, written whole and read back, one orch did not write says what to do", () =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "orch-conflicts-file-"))
      assert.deepStrictEqual((yield* readConflicts(root)).predictions, [])
      yield* writeConflicts(root, { updatedAt: "2026-11-27T22:00:00.000Z", predictions })
      assert.deepStrictEqual((yield* readConflicts(root)).predictions, predictions)
      writeFileSync(conflictsPath(root), "{\"predictions\": 3}")
      const error = yield* Effect.flip(readConflicts(root))
      assert.match(
        error.message,
        /conflicts\.json: .*not what orch writes: .*; move it away \(the running supervisor predicts the conflicts again within seconds\)/
      )
    }))
})
