/** Counting and grouping by host, as placement and the probe use them. */
import { assert, describe, it } from "@effect/vitest"
import type { RuntimeHandle, SessionRecord } from "../../src/domain/session.ts"
import { byHost } from "../../src/plugins/runtime/host-runtime.ts"
import { sessionsPerHost } from "../../src/sessions/host-choice.ts"

const record = (sessionId: string, fields: Partial<SessionRecord>): SessionRecord => ({
  sessionId,
  projectId: "app",
  issueId: sessionId,
  status: "working",
  activity: "active",
  branch: `feat/${sessionId}`,
  workspacePath: "/w",
  runtime: null,
  agent: { plugin: "command" },
  pr: null,
  createdAt: "2026-11-24T00:00:00.000Z",
  updatedAt: "2026-11-24T00:00:00.000Z",
  ...fields
})
const handle = (id: string, host?: string): RuntimeHandle => ({ plugin: "multiplexer", id, data: host === undefined ? {} : { host } })

describe("sessions by host", () => {
  it("sessionsPerHost counts sessions whose agent may run (not ended, not exited); a record without a host is local", () => {
    const rows: ReadonlyArray<[ReadonlyArray<SessionRecord>, Record<string, number>]> = [
      [[], {}],
      [[record("1", {}), record("2", { host: "local" })], { local: 2 }],
      [[record("1", { host: "a" }), record("2", { host: "a" }), record("3", { host: "b" })], { a: 2, b: 1 }],
      [[record("1", { host: "a", status: "killed" }), record("2", { host: "a", status: "merged" }), record("3", { host: "a", status: "stuck" })], { a: 1 }],
      [[record("1", { host: "a", status: "errored", activity: "exited" }), record("2", { host: "a", status: "pr_open", activity: "idle" })], { a: 1 }]
    ]
    for (const [records, expected] of rows) assert.deepStrictEqual(Object.fromEntries(sessionsPerHost(records)), expected)
  })

  it("byHost groups handles by the host their data names, in first-seen order", () => {
    const groups = byHost([handle("1", "b"), handle("2"), handle("3", "b"), handle("4", "a")])
    assert.deepStrictEqual([...groups].map(([host, handles]) => [host, handles.map((h) => h.id)]), [["b", ["1", "3"]], ["local", ["2"]], ["a", ["4"]]])
  })
})
