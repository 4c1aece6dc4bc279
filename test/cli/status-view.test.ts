import { describe, expect, it } from "@effect/vitest"
import { asShown, awaitingReviewLine, recordedNote, statusTable, unwatchedLine } from "../../src/cli/status-view.ts"
import type { ActivitySignal } from "../../src/domain/activity.ts"
import type { SessionRecord, SessionStatus } from "../../src/domain/session.ts"

const NOW = Date.parse("2026-11-21T12:00:00.000Z")
const MIN = 60_000
const iso = (ms: number) => new Date(ms).toISOString()

const record = (status: SessionStatus, updatedMinutesAgo: number, fields: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "1",
  status,
  activity: status === "merged" ? "exited" : "active",
  branch: "feat/1",
  workspacePath: "/w",
  runtime: { plugin: "multiplexer", id: "app-1", data: {} },
  agent: { plugin: "command" },
  pr: null,
  createdAt: iso(NOW - 180 * MIN),
  updatedAt: iso(NOW - updatedMinutesAgo * MIN),
  ...fields
})

describe("orch status: what a record is shown as", () => {
  it.each<[string, SessionRecord, ActivitySignal | undefined, boolean, { activity: string; recorded: boolean; recordedAgeMs: number }]>([
    ["no supervisor: a live session is as last recorded, with its age", record("working", 180), undefined, false, {
      activity: "active",
      recorded: true,
      recordedAgeMs: 180 * MIN
    }],
    ["no supervisor: a newer signal of the agent is shown, aged from the signal", record("working", 60), { ts: iso(NOW - 5 * MIN), event: "Stop" }, false, {
      activity: "ready",
      recorded: true,
      recordedAgeMs: 5 * MIN
    }],
    ["no supervisor: an older signal changes nothing", record("working", 60), { ts: iso(NOW - 90 * MIN), event: "Stop" }, false, {
      activity: "active",
      recorded: true,
      recordedAgeMs: 60 * MIN
    }],
    ["no supervisor: an ended session is final, not stale", record("merged", 600), undefined, false, {
      activity: "exited",
      recorded: false,
      recordedAgeMs: 600 * MIN
    }],
    ["no supervisor: an interrupted spawn is what it is now, not as last recorded", record("interrupted", 30), undefined, false, {
      activity: "active",
      recorded: false,
      recordedAgeMs: 30 * MIN
    }],
    ["no supervisor: exited (cleaned) is final too", record("exited", 30), undefined, false, { activity: "active", recorded: false, recordedAgeMs: 30 * MIN }],
    ["a supervisor watches: the record is its current view", record("working", 180), undefined, true, {
      activity: "active",
      recorded: false,
      recordedAgeMs: 180 * MIN
    }],
    ["a record written a moment in the future (clock skew) is 0 old", record("working", -1), undefined, false, {
      activity: "active",
      recorded: true,
      recordedAgeMs: 0
    }]
  ])("%s", (_name, input, signal, supervised, expected) => {
    const shown = asShown(input, signal, { supervised, nowMs: NOW })
    expect({ activity: shown.activity, recorded: shown.recorded, recordedAgeMs: shown.recordedAgeMs }).toEqual(expected)
    expect(shown).toMatchObject({ ...input, activity: expected.activity })
  })

  it("the table gets a RECORDED column and a note only when some row is as last recorded", () => {
    const unwatched = [
      asShown(record("working", 180), undefined, { supervised: false, nowMs: NOW }),
      asShown(record("merged", 600, { sessionId: "app-2", issueId: "2", branch: "feat/2", pr: { number: 4, url: "u", state: "merged" } }), undefined, {
        supervised: false,
        nowMs: NOW
      })
    ]
    expect(statusTable(unwatched, NOW).split("\n")).toEqual([
      "SESSION  ISSUE  BRANCH  STATUS   ACTIVITY  PR         AGE  RECORDED",
      "app-1    1      feat/1  working  active    -          3h   3h ago",
      "app-2    2      feat/2  merged   exited    #4 merged  3h   -"
    ])
    expect(recordedNote(unwatched)).toBe(
      "No supervisor is running, so live sessions show what was last recorded (RECORDED), not what they are doing now: " +
        "`orch session ls` checks their terminals, `orch start <project>` keeps them current."
    )
    expect(recordedNote(unwatched, true)).toBe(
      "The supervisor does not answer, so live sessions show what was last recorded (RECORDED), not what they are doing now: " +
        "`orch session ls` checks their terminals."
    )
    const watched = unwatched.map((row) => ({ ...row, recorded: false }))
    expect(statusTable(watched, NOW).split("\n")[0]).toBe("SESSION  ISSUE  BRANCH  STATUS   ACTIVITY  PR         AGE")
    expect(recordedNote(watched)).toBeUndefined()
  })

  it("counts, per project, the PRs that wait on a person (open, green, not approved)", () => {
    const open = { pr: { number: 1, url: "u", state: "open" as const }, checks: "passing" as const }
    expect(awaitingReviewLine([record("pr_open", 1, { ...open, review: "approved" }), record("ci_failed", 1, { ...open, checks: "failing" })])).toBeUndefined()
    expect(awaitingReviewLine([
      record("pr_open", 1, open),
      record("pr_open", 1, { ...open, sessionId: "app-2" }),
      record("pr_open", 1, { ...open, sessionId: "web-1", projectId: "web" }),
      record("killed", 1, { ...open, sessionId: "app-3" })
    ])).toBe("PRs awaiting a review: app 2, web 1")
  })

  it("a live session on a host that does not answer reads unknown; an ended one, and one elsewhere, as recorded", () => {
    const options = { supervised: true, nowMs: NOW, downHosts: new Set(["b"]) }
    expect(asShown(record("working", 1, { host: "b" }), undefined, options).activity).toBe("unknown")
    expect(asShown(record("killed", 1, { host: "b", activity: "exited" }), undefined, options).activity).toBe("exited")
    expect(asShown(record("working", 1, { host: "a" }), undefined, options).activity).toBe("active")
  })

  it.each<[string, SessionRecord, boolean, ReadonlySet<string> | undefined, { status: string; recorded: boolean }]>([
    ["a live session of a project the supervisor serves: as it is", record("pr_open", 5), true, new Set(["app"]), { status: "pr_open", recorded: false }],
    ["a live session of a project it no longer serves: unwatched, as last recorded", record("pr_open", 5), true, new Set(["web"]), {
      status: "unwatched",
      recorded: true
    }],
    ["an ended one of such a project: ended, final", record("killed", 5), true, new Set(["web"]), { status: "killed", recorded: false }],
    ["a spawn under way of such a project: its spawn's", record("spawning", 5), true, new Set(["web"]), { status: "spawning", recorded: false }],
    ["no supervisor: nothing watches anything, and nothing is unwatched", record("working", 5), false, undefined, { status: "working", recorded: true }]
  ])("%s", (_name, input, supervised, watched, expected) => {
    const shown = asShown(input, undefined, { supervised, nowMs: NOW, ...(watched !== undefined ? { watched } : {}) })
    expect({ status: shown.status, recorded: shown.recorded }).toEqual(expected)
  })

  it("unwatched sessions: a line of which, why and what to do, and not the no-supervisor note", () => {
    const options = { supervised: true, nowMs: NOW, watched: new Set(["web"]) }
    const rows = [
      asShown(record("working", 10), undefined, options),
      asShown(record("ready", 10, { sessionId: "app-2", issueId: "2", branch: "feat/2" }), undefined, options),
      asShown(record("working", 10, { sessionId: "web-1", projectId: "web", issueId: "3", branch: "feat/3" }), undefined, options)
    ]
    expect(statusTable(rows, NOW).split("\n")).toEqual([
      "SESSION  ISSUE  BRANCH  STATUS     ACTIVITY  PR  AGE  RECORDED",
      "app-1    1      feat/1  unwatched  active    -   3h   10m ago",
      "app-2    2      feat/2  unwatched  active    -   3h   10m ago",
      "web-1    3      feat/3  working    active    -   3h   -"
    ])
    expect(unwatchedLine(rows, "/home/me/.config/orchestrator/config.yaml")).toBe(
      "app-1, app-2 are unwatched: project app is not in /home/me/.config/orchestrator/config.yaml, so nothing probes them or reacts for them; " +
        "add the project back to that file (it applies without a restart) to watch them again, or end them with `orch session kill app-1`"
    )
    expect(recordedNote(rows)).toBeUndefined()
    expect(unwatchedLine(rows.slice(2), undefined)).toBeUndefined()
  })
})
