/**
 * `latestSignal` reads only the tail of a session's activity file: the newest line that is a signal, or nothing when
 * the agent never signalled (no file: not an error).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseSignal, reportLine } from "../../src/domain/activity.ts"
import { latestSignal } from "../../src/store/activity-file.ts"

const AT = Date.parse("2026-11-27T10:00:00.000Z")
const made: Array<string> = []
const dir = () => {
  const path = mkdtempSync(join(tmpdir(), "orch-activity-"))
  made.push(path)
  return path
}
afterAll(() => made.forEach((path) => rmSync(path, { recursive: true, force: true })))

describe("latestSignal", () => {
  it("is nothing for a session whose agent never signalled", () => assert.isUndefined(latestSignal(join(dir(), "activity.jsonl"))))

  it("is the newest line that is a signal, past garbage and a partial line at the end", () => {
    const file = join(dir(), "activity.jsonl")
    writeFileSync(file, [reportLine("active", AT), reportLine("done", AT + 1000, "merged"), "not json", "{\"ts\":\"2026-11-27T10:00:0"].join("\n"))
    assert.deepStrictEqual(latestSignal(file), parseSignal(reportLine("done", AT + 1000, "merged")))
  })

  it("reads a long file's tail only, and finds its newest signal there", () => {
    const file = join(dir(), "activity.jsonl")
    const old = Array.from({ length: 2000 }, (_, i) => reportLine("active", AT + i)).join("\n")
    writeFileSync(file, `${old}\n${reportLine("waiting_input", AT + 5000)}\n`)
    assert.deepStrictEqual(latestSignal(file), parseSignal(reportLine("waiting_input", AT + 5000)))
  })
})
