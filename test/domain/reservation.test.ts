/**
 * The memory reservation of a session just placed (src/domain/reservation.ts), over explicit time: while its spawn
 * runs, then until the first size sample once it became measurable (a minute after it started), at most two minutes.
 */
import { assert, describe, it } from "@effect/vitest"
import { holdsReservation, RESERVATION_MAX_MS, type ReservationFacts, reservedPerHost, reservedSessions } from "../../src/domain/reservation.ts"
import type { SessionRecord } from "../../src/domain/session.ts"
import { workingSession } from "../support/session-record.ts"

const T0 = Date.parse("2026-11-26T14:00:00.000Z")
const S = 1000
const session = (fields: Partial<SessionRecord> = {}): SessionRecord => workingSession(T0, fields)
const at = (ms: number, extra: Partial<ReservationFacts> = {}): ReservationFacts => ({ now: T0 + ms, runningSpawns: new Set(), ...extra })

describe("holdsReservation", () => {
  const table: ReadonlyArray<readonly [string, SessionRecord, ReservationFacts, boolean]> = [
    ["just started, nothing sampled yet", session(), at(1 * S), true],
    ["a sample from before it started does not include it", session(), at(30 * S, { sampledAt: T0 - 5 * S }), true],
    ["a sample taken before it was measurable (under a minute old) does not include it", session(), at(70 * S, { sampledAt: T0 + 59 * S }), true],
    ["the first sample once it was measurable includes it", session(), at(70 * S, { sampledAt: T0 + 60 * S }), false],
    ["a later sample too", session(), at(100 * S, { sampledAt: T0 + 95 * S }), false],
    ["no sample comes (no supervisor): held until the bound", session(), at(RESERVATION_MAX_MS - 1), true],
    ["no sample comes (no supervisor): released at the bound", session(), at(RESERVATION_MAX_MS), false],
    ["an old sample does not keep it past the bound", session(), at(5 * 60 * S, { sampledAt: T0 - 60 * S }), false],
    [
      "spawning, its spawn's process runs: held however long the spawn takes",
      session({ status: "spawning", activity: "unknown" }),
      at(10 * 60 * S, { sampledAt: T0 + 9 * 60 * S, runningSpawns: new Set(["app-1"]) }),
      true
    ],
    ["spawning, its spawn's process is gone (killed half-way): nothing held", session({ status: "spawning", activity: "unknown" }), at(1 * S), false],
    ["an orchestrator session is not a worker: admission does not count it", session({ role: "orchestrator" }), at(1 * S), false],
    ["its agent exited: it holds no memory", session({ status: "errored", activity: "exited" }), at(1 * S), false],
    ["ended (killed)", session({ status: "killed", activity: "exited" }), at(1 * S), false],
    ["a record whose start cannot be read holds nothing", session({ createdAt: "" }), at(1 * S), false]
  ]
  for (const [name, record, facts, expected] of table) {
    it(name, () => assert.strictEqual(holdsReservation(record, facts), expected))
  }
})

describe("reservedSessions and reservedPerHost", () => {
  it("counts each host's reserved sessions, this machine's as local", () => {
    const records = [
      session({ sessionId: "app-1" }),
      session({ sessionId: "app-2", host: "a" }),
      session({ sessionId: "app-3", host: "a" }),
      session({ sessionId: "app-4", host: "b", createdAt: new Date(T0 - 10 * 60 * S).toISOString() })
    ]
    const reserved = reservedSessions(records, at(5 * S))
    assert.deepStrictEqual(reserved.map((r) => r.sessionId), ["app-1", "app-2", "app-3"])
    assert.deepStrictEqual([...reservedPerHost(reserved)], [["local", 1], ["a", 2]])
  })
})
