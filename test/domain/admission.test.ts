import { describe, expect, it } from "@effect/vitest"
import { admission, type AdmissionFacts, afterAdmitting, blocker, type Candidate, planBatch } from "../../src/domain/admission.ts"

const GB = 1024 ** 3
const entry = (id: string, projectId = "app", agent = "claude-code"): Candidate => ({ id, projectId, agent })
const facts = (over: Partial<AdmissionFacts> = {}): AdmissionFacts => ({
  totalLive: 0,
  projects: {},
  machine: { name: "this machine", freeBytes: 16 * GB, reserveBytes: 1 * GB, load: 0.5, maxLoad: 4 },
  expectedBytes: () => 1 * GB,
  ...over
})

describe("blocker: the budget an entry waits on", () => {
  it.each<[string, AdmissionFacts, Candidate, string | undefined]>([
    ["every budget allows", facts(), entry("q1"), undefined],
    ["no limits at all, no machine figures", facts({ machine: { name: "this machine", reserveBytes: 0 } }), entry("q1"), undefined],
    ["total maxSessions reached", facts({ totalLive: 2, maxSessions: 2 }), entry("q1"), "waiting for a free session: 2 running, maxSessions 2"],
    ["total under maxSessions", facts({ totalLive: 1, maxSessions: 2 }), entry("q1"), undefined],
    [
      "project maxSessions reached",
      facts({ projects: { app: { live: 3, maxSessions: 3, awaitingReview: 0 } } }),
      entry("q1"),
      "waiting for a free session in app: 3 running, its maxSessions 3"
    ],
    ["another project's maxSessions does not count", facts({ projects: { web: { live: 3, maxSessions: 3, awaitingReview: 0 } } }), entry("q1"), undefined],
    [
      "reviews: maxAwaitingReview reached",
      facts({ projects: { app: { live: 1, awaitingReview: 4, maxAwaitingReview: 4 } } }),
      entry("q1"),
      "waiting for reviews in app: 4 PRs await a review, its maxAwaitingReview 4"
    ],
    ["reviews: unset means no limit", facts({ projects: { app: { live: 1, awaitingReview: 40 } } }), entry("q1"), undefined],
    [
      "hosts: placement can put it nowhere",
      facts({ projects: { app: { live: 4, awaitingReview: 0, unplaceable: "no host can take the session: a: it runs 2 sessions, its maxSessions 2" } } }),
      entry("q1"),
      "waiting for a host: no host can take the session: a: it runs 2 sessions, its maxSessions 2"
    ],
    [
      "quota: the project's agent credential is rate-limited",
      facts({ projects: { app: { live: 1, awaitingReview: 0, rateLimited: "coding-agent is rate-limited (app-3); orch tells app-3 to continue at 16:12" } } }),
      entry("q1"),
      "waiting for the model quota: coding-agent is rate-limited (app-3); orch tells app-3 to continue at 16:12"
    ],
    [
      "hosts: another project's placement does not count",
      facts({ projects: { web: { live: 4, awaitingReview: 0, unplaceable: "no host can take the session" } } }),
      entry("q1"),
      undefined
    ],
    [
      "memory: free minus reserve under the expected size",
      facts({ machine: { name: "this machine", freeBytes: 2.4 * GB, reserveBytes: 1 * GB }, expectedBytes: () => 1.8 * GB }),
      entry("q1"),
      "waiting for memory on this machine: 2.4 GB free, 1.0 GB of it kept in reserve, 1.8 GB needed"
    ],
    [
      "memory: the expected size is the entry's agent's",
      facts({ machine: { name: "this machine", freeBytes: 2.4 * GB, reserveBytes: 1 * GB }, expectedBytes: (a) => (a === "codex" ? 0.5 * GB : 1.8 * GB) }),
      entry("q1", "app", "codex"),
      undefined
    ],
    [
      "memory: less free than the reserve (not \"of it\")",
      facts({ machine: { name: "host b", freeBytes: 0.5 * GB, reserveBytes: 1 * GB }, expectedBytes: () => 300 * 1024 ** 2 }),
      entry("q1"),
      "waiting for memory on host b: 512 MB free, 1.0 GB kept in reserve, 300 MB needed"
    ],
    [
      "memory: no reserve, none said",
      facts({ machine: { name: "host b", freeBytes: 0.2 * GB, reserveBytes: 0 }, expectedBytes: () => 300 * 1024 ** 2 }),
      entry("q1"),
      "waiting for memory on host b: 205 MB free, 300 MB needed"
    ],
    [
      "memory: sessions just started count at their expected size until measured, and the sentence says what is free and how they count",
      facts({ machine: { name: "this machine", freeBytes: 23.5 * GB, reserveBytes: 1 * GB, held: Array(22).fill(1 * GB) } }),
      entry("q1"),
      "waiting for memory on this machine: 23.5 GB free, 1.0 GB of it kept in reserve, 22 sessions just started counted at 1.0 GB each until they are measured, 1.0 GB needed"
    ],
    [
      "memory: what is held leaves room for one more",
      facts({ machine: { name: "this machine", freeBytes: 4 * GB, reserveBytes: 1 * GB, held: [1 * GB, 1 * GB] } }),
      entry("q1"),
      undefined
    ],
    [
      "memory: one session held, of different agents' sizes",
      facts({ machine: { name: "this machine", freeBytes: 2 * GB, reserveBytes: 1 * GB, held: [0.5 * GB] } }),
      entry("q1"),
      "waiting for memory on this machine: 2.0 GB free, 1.0 GB of it kept in reserve, 1 session just started counted at 512 MB until it is measured, 1.0 GB needed"
    ],
    [
      "memory: held sessions of different sizes",
      facts({ machine: { name: "this machine", freeBytes: 3 * GB, reserveBytes: 1 * GB, held: [0.5 * GB, 1.5 * GB] } }),
      entry("q1"),
      "waiting for memory on this machine: 3.0 GB free, 1.0 GB of it kept in reserve, 2 sessions just started counted at 512 MB to 1.5 GB each until they are measured, 1.0 GB needed"
    ],
    [
      "memory: sessions just started count for more than is left after the reserve",
      facts({ machine: { name: "this machine", freeBytes: 2.5 * GB, reserveBytes: 1 * GB, held: [1 * GB, 1 * GB] } }),
      entry("q1"),
      "waiting for memory on this machine: 2.5 GB free, 1.0 GB of it kept in reserve, 2 sessions just started counted at 1.0 GB each until they are measured, 1.0 GB needed"
    ],
    [
      "load at its maximum",
      facts({ machine: { name: "this machine", freeBytes: 16 * GB, reserveBytes: GB, load: 8.2, maxLoad: 4 } }),
      entry("q1"),
      "waiting for load on this machine to fall: 8.2, at most 4.0"
    ],
    [
      "concurrency is told before memory",
      facts({ totalLive: 2, maxSessions: 2, machine: { name: "this machine", freeBytes: 0, reserveBytes: GB } }),
      entry("q1"),
      "waiting for a free session: 2 running, maxSessions 2"
    ]
  ])("%s", (_, given, candidate, expected) => {
    expect(blocker(candidate, given)).toBe(expected)
  })
})

describe("admission: which entry starts", () => {
  it.each<[string, ReadonlyArray<Candidate>, AdmissionFacts, string | undefined, ReadonlyArray<[string, string]>]>([
    ["empty queue", [], facts(), undefined, []],
    ["the first admissible entry, the rest wait their turn", [entry("q1"), entry("q2")], facts(), "q1", [["q2", "waiting for its turn"]]],
    [
      "total full: nothing starts, each says why",
      [entry("q1"), entry("q2", "web")],
      facts({ totalLive: 2, maxSessions: 2 }),
      undefined,
      [["q1", "waiting for a free session: 2 running, maxSessions 2"], ["q2", "waiting for a free session: 2 running, maxSessions 2"]]
    ],
    [
      "a full project lets another project's entry pass",
      [entry("q1"), entry("q2", "web")],
      facts({ projects: { app: { live: 1, maxSessions: 1, awaitingReview: 0 } } }),
      "q2",
      [["q1", "waiting for a free session in app: 1 running, its maxSessions 1"]]
    ]
  ])("%s", (_, entries, given, admitted, waiting) => {
    const verdict = admission(entries, given)
    expect(verdict.admit?.id).toBe(admitted)
    expect(verdict.waiting.map((w) => [w.entry.id, w.reason])).toEqual(waiting)
  })

  it("admitting one counts it: the next round sees one more live session and less memory", () => {
    const start = facts({ maxSessions: 2, totalLive: 1, machine: { name: "this machine", freeBytes: 3.5 * GB, reserveBytes: GB }, expectedBytes: () => GB })
    const first = admission([entry("q1"), entry("q2")], start)
    expect(first.admit?.id).toBe("q1")
    const next = afterAdmitting(start, first.admit!)
    expect(next.totalLive).toBe(2)
    expect(next.projects.app?.live).toBe(1)
    expect(next.machine.freeBytes).toBe(3.5 * GB)
    expect(next.machine.held).toEqual([GB])
    expect(admission([entry("q2")], next).waiting[0]?.reason).toBe("waiting for a free session: 2 running, maxSessions 2")
  })

  it("admitting one holds its expected size on top of what the records' reservations hold, once", () => {
    const start = facts({ machine: { name: "this machine", freeBytes: 4.5 * GB, reserveBytes: GB, held: [GB] }, expectedBytes: () => GB })
    const next = afterAdmitting(start, entry("q1"))
    expect(next.machine.held).toEqual([GB, GB])
    expect(admission([entry("q2")], next).admit?.id).toBe("q2")
    expect(admission([entry("q3")], afterAdmitting(next, entry("q2"))).waiting[0]?.reason).toBe(
      "waiting for memory on this machine: 4.5 GB free, 1.0 GB of it kept in reserve, 3 sessions just started counted at 1.0 GB each until they are measured, 1.0 GB needed"
    )
  })
})

describe("planBatch: a batch behind the queue", () => {
  it.each<[string, ReadonlyArray<Candidate>, ReadonlyArray<Candidate>, AdmissionFacts, ReadonlyArray<string>, ReadonlyArray<[string, string]>]>([
    ["no limits: all start", [], [entry("a"), entry("b")], facts(), ["a", "b"], []],
    [
      "maxSessions 2, nothing live: 2 start, 2 wait on concurrency",
      [],
      [entry("a"), entry("b"), entry("c"), entry("d")],
      facts({ maxSessions: 2 }),
      ["a", "b"],
      [["c", "waiting for a free session: 2 running, maxSessions 2"], ["d", "waiting for a free session: 2 running, maxSessions 2"]]
    ],
    [
      "what is queued already goes first",
      [entry("q")],
      [entry("a"), entry("b")],
      facts({ maxSessions: 2 }),
      ["a"],
      [["b", "waiting for a free session: 2 running, maxSessions 2"]]
    ],
    [
      "memory for one more session only",
      [],
      [entry("a"), entry("b")],
      facts({ machine: { name: "this machine", freeBytes: 2.5 * GB, reserveBytes: GB }, expectedBytes: () => GB }),
      ["a"],
      [[
        "b",
        "waiting for memory on this machine: 2.5 GB free, 1.0 GB of it kept in reserve, 1 session just started counted at 1.0 GB until it is measured, 1.0 GB needed"
      ]]
    ],
    [
      "room for 2.5 sessions, one started a moment ago (reserved in the records): one more starts, not two",
      [],
      [entry("a"), entry("b"), entry("c")],
      facts({ machine: { name: "this machine", freeBytes: 3.5 * GB, reserveBytes: GB, held: [GB] }, expectedBytes: () => GB }),
      ["a"],
      [
        [
          "b",
          "waiting for memory on this machine: 3.5 GB free, 1.0 GB of it kept in reserve, 2 sessions just started counted at 1.0 GB each until they are measured, 1.0 GB needed"
        ],
        [
          "c",
          "waiting for memory on this machine: 3.5 GB free, 1.0 GB of it kept in reserve, 2 sessions just started counted at 1.0 GB each until they are measured, 1.0 GB needed"
        ]
      ]
    ]
  ])("%s", (_, queued, fresh, given, started, waiting) => {
    const plan = planBatch(queued, fresh, given)
    expect(plan.start.map((e) => e.id)).toEqual(started)
    expect(plan.waiting.map((w) => [w.entry.id, w.reason])).toEqual(waiting)
  })
})
