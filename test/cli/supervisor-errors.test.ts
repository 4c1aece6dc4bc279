/** The line `orch status` prints when the supervisor met errors lately (src/cli/supervisor-errors.ts). */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readRecentErrors, recentErrors, supervisorErrorsNote } from "../../src/cli/supervisor-errors.ts"
import type { OrchEvent } from "../../src/domain/event.ts"

const NOW = Date.parse("2026-05-01T12:00:00.000Z")
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString()
const error = (minutesAgo: number, loop = "PR poll"): OrchEvent => ({
  timestamp: at(minutesAgo),
  type: "supervisor.error",
  message: `${loop} failed: HTTP 500; orch tries again in 2 s.`,
  data: { loop, attempt: 1 }
})
const other = (minutesAgo: number, type: OrchEvent["type"] = "session.working"): OrchEvent => ({ timestamp: at(minutesAgo), type })

describe("recentErrors (events newest first)", () => {
  it.each<[string, ReadonlyArray<OrchEvent>, { count: number; loop: string } | undefined]>([
    ["no events", [], undefined],
    ["no errors", [other(1), other(2)], undefined],
    ["errors among other events, the newest is the last", [other(0), error(1, "probe cycle"), other(2), error(3), error(4)], { count: 3, loop: "probe cycle" }],
    ["errors older than the window do not count", [error(2), error(9), error(11), error(12)], { count: 2, loop: "PR poll" }],
    ["only errors older than the window: none", [other(1), error(11)], undefined],
    ["an earlier supervisor's errors do not count", [error(1), other(2, "supervisor.started"), error(3)], { count: 1, loop: "PR poll" }],
    ["a supervisor started since its last error: none", [other(1, "supervisor.started"), error(2)], undefined]
  ])("%s", (_name, events, expected) => {
    const found = recentErrors(events, NOW)
    assert.deepStrictEqual(found === undefined ? undefined : { count: found.count, loop: found.last.data?.loop }, expected)
  })
})

// The same answers read from a log file, oldest line first, where lines that are not events (a torn line, a line of
// another shape) are skipped whatever their type or time says: only events decide.
describe("readRecentErrors (from the event log)", () => {
  const notAnEvent = (minutesAgo: number, type: string) => ({ timestamp: at(minutesAgo), type, data: "not an object" })
  it.each<[string, ReadonlyArray<unknown>, { count: number; loop: string } | undefined]>([
    ["no log lines", [], undefined],
    ["errors among other events", [error(4), error(3), other(2), error(1, "probe cycle"), other(0)], { count: 3, loop: "probe cycle" }],
    ["a torn line and a line of another shape are skipped", [error(2), "{\"timestamp\":", { hello: 1 }, other(1)], { count: 1, loop: "PR poll" }],
    ["an invalid error does not count", [error(2), notAnEvent(1, "supervisor.error")], { count: 1, loop: "PR poll" }],
    ["an invalid start does not end the window", [error(2), notAnEvent(1, "supervisor.started")], { count: 1, loop: "PR poll" }],
    ["an invalid old line does not end the window", [error(12), error(3), notAnEvent(20, "session.working"), error(2)], { count: 2, loop: "PR poll" }],
    ["a valid old event ends the window", [error(3), other(11), error(2)], { count: 1, loop: "PR poll" }],
    ["an earlier supervisor's errors do not count", [error(3), other(2, "supervisor.started"), error(1)], { count: 1, loop: "PR poll" }]
  ])("%s", (_name, lines, expected) => {
    const dir = mkdtempSync(join(tmpdir(), "orch-recent-errors-"))
    try {
      const path = join(dir, "events.jsonl")
      writeFileSync(path, lines.map((line) => `${typeof line === "string" ? line : JSON.stringify(line)}\n`).join(""))
      const found = readRecentErrors(path, NOW)
      assert.deepStrictEqual(found === undefined ? undefined : { count: found.count, loop: found.last.data?.loop }, expected)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("supervisorErrorsNote", () => {
  const paths = { events: "/home/me/.orchestrator/events.jsonl", supervisorLog: "/home/me/.orchestrator/supervisor.log" }
  it("says how many, the last one, and where to read more", () => {
    assert.strictEqual(
      supervisorErrorsNote({ count: 3, last: error(1) }, paths, "/home/me"),
      "The supervisor met 3 errors in the last 10 minutes (last: PR poll failed: HTTP 500; orch tries again in 2 s): see `grep supervisor.error ~/.orchestrator/events.jsonl` and its log at ~/.orchestrator/supervisor.log."
    )
  })
  it("one error, outside the home directory", () => {
    assert.strictEqual(
      supervisorErrorsNote(
        { count: 1, last: error(1, "issue poll") },
        { events: "/srv/orch/events.jsonl", supervisorLog: "/srv/orch/supervisor.log" },
        "/home/me"
      ),
      "The supervisor met 1 error in the last 10 minutes (last: issue poll failed: HTTP 500; orch tries again in 2 s): see `grep supervisor.error /srv/orch/events.jsonl` and its log at /srv/orch/supervisor.log."
    )
  })
})
