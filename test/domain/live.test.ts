/**
 * The one rule every list uses for a spawn whose process is gone (`shownStatus`), and what asks the system whether
 * that process lives (src/store/spawner.ts): by pid and start time, so a pid the kernel gave to another process is
 * not taken for the spawner; and a live session whose agent is gone, from the pid its tmux handle keeps.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { asAgentGone, isInterrupted, isLive, shownStatus } from "../../src/domain/live.ts"
import type { SessionRecord, SessionStatus, SpawnJournal } from "../../src/domain/session.ts"
import { isProcessAlive, processStartTime } from "../../src/store/process-liveness.ts"
import { agentGoneChecker, agentProcessGone, asListed, interruptedSpawns, owesReconcile, spawnerLives } from "../../src/store/spawner.ts"

const JOURNAL: SpawnJournal = { pid: 4242, startedAt: "2026-11-21T10:00:00.000Z", workspace: "/w/app-1", createdBranch: true }

const record = (status: SessionStatus, spawn?: SpawnJournal): SessionRecord => ({
  sessionId: "app-1",
  projectId: "app",
  issueId: "9",
  status,
  activity: "unknown",
  branch: "feat/9",
  workspacePath: "/w/app-1",
  runtime: null,
  agent: { plugin: "command" },
  pr: null,
  createdAt: "2026-11-21T10:00:00.000Z",
  updatedAt: "2026-11-21T10:00:00.000Z",
  ...(spawn !== undefined ? { spawn } : {})
})

describe("shownStatus: a spawn whose process is gone is interrupted", () => {
  it.each<[string, SessionRecord, boolean, SessionStatus]>([
    ["a spawn under way (its process lives)", record("spawning", JOURNAL), true, "spawning"],
    ["a spawn whose process is gone", record("spawning", JOURNAL), false, "interrupted"],
    ["a spawning record with no journal cannot tell: as it is", record("spawning"), false, "spawning"],
    ["a session that runs, though the process that spawned it exited long ago", record("working"), false, "working"],
    ["a running session with a journal left (never written so, but): as it is", record("working", JOURNAL), false, "working"],
    ["an ended session", record("killed"), false, "killed"],
    ["an errored session", record("errored"), true, "errored"]
  ])("%s", (_name, input, spawnerLives, expected) => {
    assert.strictEqual(shownStatus(input, spawnerLives), expected)
    assert.strictEqual(isInterrupted(input, spawnerLives), expected === "interrupted")
  })

  it("an interrupted spawn has no agent to watch", () => {
    assert.isFalse(isLive({ status: "interrupted" }))
    assert.isFalse(isLive({ status: "spawning" }))
    assert.isTrue(isLive({ status: "working" }))
  })
})

describe("whether the spawner lives, asked of the system", () => {
  const me = processStartTime(process.pid)
  // A process that ran and was reaped: its pid names nothing now.
  const gone = spawnSync("true").pid!

  it.each<[string, SpawnJournal | undefined, boolean]>([
    ["this process, with its start time", { ...JOURNAL, pid: process.pid, ...(me !== undefined ? { startTime: me } : {}) }, true],
    ["this process, from an older record without a start time", { ...JOURNAL, pid: process.pid }, true],
    ["this pid, but another process's start time (the pid was reused)", { ...JOURNAL, pid: process.pid, startTime: "1" }, false],
    ["a process that exited", { ...JOURNAL, pid: gone }, false],
    ["no journal: nothing to ask", undefined, true]
  ])("%s", (_name, spawn, lives) => {
    const input = record("spawning", spawn)
    assert.strictEqual(spawnerLives(input), lives)
    assert.strictEqual(asListed(input).status, lives ? "spawning" : "interrupted")
    assert.strictEqual(interruptedSpawns([input, record("working", spawn)]).length, lives ? 0 : 1)
  })

  it("a record that is not spawning is listed as it is, the same object (no process asked)", () => {
    const working = record("working", { ...JOURNAL, pid: gone })
    assert.strictEqual(asListed(working), working)
  })
})

describe("whether records owe a spawn through the supervisor a reconcile first", () => {
  const gone = spawnSync("true").pid!
  const me = { ...JOURNAL, pid: process.pid, ...(processStartTime(process.pid) !== undefined ? { startTime: processStartTime(process.pid)! } : {}) }
  const killer = (pid: number) => ({ pid, at: JOURNAL.startedAt })

  it.each<[string, ReadonlyArray<SessionRecord>, boolean]>([
    ["no records", [], false],
    ["sessions that run, and a spawn under way (its process lives)", [record("working"), record("spawning", me)], false],
    ["a spawn whose process is gone (it may hold the issue)", [record("working"), record("spawning", { ...JOURNAL, pid: gone })], true],
    ["a kill whose process is gone", [{ ...record("working"), killing: killer(gone) }], true],
    ["a kill under way (its process lives)", [{ ...record("working"), killing: killer(process.pid) }], false],
    ["a whole spawn's session.spawned still to write (its spawner gone)", [record("working", { ...JOURNAL, pid: gone, announce: 3 })], true],
    ["that event still to write by a spawner that lives: its own", [record("working", { ...me, announce: 3 })], false]
  ])("%s", (_name, records, owed) => assert.strictEqual(owesReconcile(records), owed))
})

describe("a live session whose agent is gone", () => {
  const exited = spawnSync("true").pid!
  const tmux = (data: Record<string, unknown>, fields: Partial<SessionRecord> = {}): SessionRecord => ({
    ...record("working"),
    activity: "active",
    runtime: { plugin: "multiplexer", id: "app-1", data: { socket: "/t/default", ...data } },
    ...fields
  })

  it.each<[string, SessionRecord, boolean]>([
    ["its pane's process exited", tmux({ pid: exited }), true],
    ["its pane's process runs", tmux({ pid: process.pid, pidStart: processStartTime(process.pid) }), false],
    ["its pid was given to another process (another start time)", tmux({ pid: process.pid, pidStart: "1" }), true],
    ["no pid kept (spawned before orch kept it): cannot tell", tmux({}), false],
    ["on another host: its pid is not this machine's", tmux({ pid: exited }, { host: "b" }), false],
    ["ended already: nothing to tell", tmux({ pid: exited }, { status: "killed" }), false],
    ["a spawn under way is its spawn's", tmux({ pid: exited }, { status: "spawning" }), false]
  ])("%s", (_name, input, expected) => assert.strictEqual(agentProcessGone(input), expected))

  it("a checker for a whole list asks the system once per distinct process, and answers as each record alone would", () => {
    const records = [
      tmux({ pid: exited }),
      tmux({ pid: process.pid, pidStart: processStartTime(process.pid) }),
      tmux({ pid: process.pid, pidStart: "1" }),
      tmux({ pid: exited }),
      tmux({ pid: process.pid, pidStart: processStartTime(process.pid) }),
      tmux({}),
      tmux({ pid: exited }, { host: "b" })
    ]
    const asked: Array<string> = []
    const gone = agentGoneChecker((pid, startTime) => {
      asked.push(`${pid} ${startTime}`)
      return isProcessAlive(pid, startTime)
    })
    assert.deepStrictEqual(records.map(gone), records.map(agentProcessGone))
    assert.deepStrictEqual(asked, [`${exited} undefined`, `${process.pid} ${processStartTime(process.pid)}`, `${process.pid} 1`])
  })

  it("is shown as the supervisor records it: errored, exited; an ended one stays as it is", () => {
    assert.deepInclude(asAgentGone(record("working")), { status: "errored", activity: "exited" })
    const ready: SessionRecord = { ...record("pr_open"), activity: "ready" }
    assert.deepInclude(asAgentGone(ready), { status: "errored", activity: "exited" })
    const killed = record("killed")
    assert.strictEqual(asAgentGone(killed), killed)
  })
})
