import { assert, describe, it } from "@effect/vitest"
import type { SessionRecord } from "../../src/domain/session.ts"
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
  createdAt: "",
  updatedAt: "",
  ...fields
})

describe("sessionsPerHost: what a host's maxSessions counts", () => {
  it("sessions whose agent may run, per host; not ended ones, nor those whose agent exited", () => {
    const counts = sessionsPerHost([
      record("a1", { host: "a" }),
      record("a2", { host: "a", status: "pr_open", activity: "idle" }),
      record("a3", { host: "a", status: "errored", activity: "exited" }),
      record("a4", { host: "a", status: "killed", activity: "exited" }),
      record("l1", {})
    ])
    assert.deepStrictEqual(Object.fromEntries(counts), { a: 2, local: 1 })
  })
})
