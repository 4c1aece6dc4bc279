import { assert, describe, it } from "@effect/vitest"
import type { HostFacts } from "../../src/hosts/headroom.ts"
import { describeNowhere, type HostReading, place, placeMany, type Placement, type PlacementHost, type PlacementRequest } from "../../src/hosts/placement.ts"

const facts = (memAvailableMb: number, extra: Partial<HostFacts> = {}): HostReading => ({
  _tag: "Measured",
  facts: { memAvailableMb, memTotalMb: 32768, load1: 0.5, cpus: 4, disk: { path: "/home/orch", freeMb: 50_000 }, tmux: "3.3a", ...extra }
})

const hosts: ReadonlyArray<PlacementHost> = [
  { name: "local" },
  { name: "a", maxSessions: 2, labels: ["linux"] },
  { name: "b", labels: ["linux", "gpu"] }
]
const base: PlacementRequest = { memoryMb: 1500, minDiskMb: 1024, maxLoadPerCpu: 1.5, sessions: new Map() }
const readings = (entries: Record<string, HostReading>) => new Map(Object.entries(entries))

describe("place (where a new session goes)", () => {
  const table: ReadonlyArray<readonly [string, Record<string, HostReading>, Partial<PlacementRequest>, Placement]> = [
    ["the most memory left wins", { local: facts(4000), a: facts(9000), b: facts(6000) }, {}, { host: "a" }],
    [
      "equal memory: the lower load per CPU, then the name",
      { local: facts(6000, { load1: 2, cpus: 4 }), a: facts(6000, { load1: 1, cpus: 4 }), b: facts(6000, { load1: 1, cpus: 4 }) },
      {},
      { host: "a" }
    ],
    ["maxSessions is per host", { local: facts(4000), a: facts(9000), b: facts(6000) }, { sessions: new Map([["a", 2]]) }, { host: "b" }],
    ["sessions its figures do not include yet keep their reserve", { local: facts(4000), a: facts(9000), b: facts(6000) }, {
      reserved: new Map([["a", 3]])
    }, { host: "b" }],
    ["hostLabels: every label needed", { local: facts(9000), a: facts(8000), b: facts(2000) }, { labels: ["linux", "gpu"] }, { host: "b" }],
    ["the project's hosts list", { local: facts(9000), a: facts(8000), b: facts(7000) }, { allowed: ["b", "local"] }, { host: "local" }],
    ["a forced host is taken even with less headroom", { local: facts(9000), a: facts(2000), b: facts(7000) }, { host: "a" }, { host: "a" }],
    [
      "a forced host still follows the project's rules",
      { local: facts(9000), a: facts(9000), b: facts(7000) },
      { host: "a", labels: ["gpu"] },
      { none: [{ host: "a", reason: "it lacks the label gpu" }] }
    ],
    [
      "a forced host that does not exist",
      { local: facts(9000) },
      { host: "z" },
      { none: [{ host: "z", reason: "there is no such host (hosts: local, a, b)" }] }
    ],
    [
      "nowhere: every host's reason",
      { local: facts(1000), a: { _tag: "Down", error: "host a did not answer within 10 s" }, b: facts(9000, { tmux: undefined }) },
      {},
      {
        none: [
          { host: "local", reason: "1000 MB of memory free, a session needs 1500 MB" },
          { host: "a", reason: "it is down (host a did not answer within 10 s)" },
          { host: "b", reason: "tmux is not installed there" }
        ]
      }
    ],
    [
      "nowhere: unmeasured, at maxSessions, disk, load, reserve of sessions just placed",
      { a: facts(9000), b: facts(9000, { load1: 7, cpus: 4 }), local: facts(2000) },
      { sessions: new Map([["a", 2]]), reserved: new Map([["local", 1]]) },
      {
        none: [
          { host: "local", reason: "500 MB of memory free (after 1500 MB reserved for sessions just placed), a session needs 1500 MB" },
          { host: "a", reason: "it runs 2 sessions, its maxSessions 2" },
          { host: "b", reason: "load 7 on 4 CPUs is over 1.5 per CPU" }
        ]
      }
    ],
    [
      "a project without origin stays here, however much room the hosts have",
      { a: facts(9000), b: facts(9000), local: facts(2000) },
      { excluded: new Map([["a", "no origin"], ["b", "no origin"]]) },
      { host: "local" }
    ],
    [
      "nowhere: no figures yet, and too little disk",
      { a: facts(9000, { disk: { path: "/home/orch", freeMb: 300 } }) },
      { allowed: ["a", "b"] },
      {
        none: [
          { host: "local", reason: "the project may not use it (its hosts: a, b)" },
          { host: "a", reason: "300 MB of disk free at /home/orch, a session needs 1024 MB" },
          { host: "b", reason: "its headroom has not been measured yet" }
        ]
      }
    ]
  ]
  for (const [name, entries, request, expected] of table) {
    it(name, () => assert.deepStrictEqual(place(hosts, readings(entries), { ...base, ...request }), expected))
  }

  it("says why nowhere in one sentence", () =>
    assert.strictEqual(
      describeNowhere([{ host: "a", reason: "it is down (x)" }, { host: "b", reason: "tmux is not installed there" }]),
      "no host can take the session: a: it is down (x); b: tmux is not installed there"
    ))
  it("names the one host asked for (--host)", () =>
    assert.strictEqual(describeNowhere([{ host: "a", reason: "it is down (x)" }]), "host a cannot take the session: it is down (x)"))
})

describe("placeMany (a batch, placed in turn on one reading)", () => {
  const only = (placements: ReadonlyArray<Placement>) => placements.map((p) => ("host" in p ? p.host : "none"))
  const table: ReadonlyArray<readonly [string, Record<string, HostReading>, Partial<PlacementRequest>, number, ReadonlyArray<string>]> = [
    ["equal hosts take turns", { a: facts(9000), b: facts(9000) }, { allowed: ["a", "b"] }, 4, ["a", "b", "a", "b"]],
    [
      "the roomier host until its maxSessions (2), then the other, each placement reserving its memory",
      { a: facts(6100), b: facts(3100) },
      {
        allowed: ["a", "b"]
      },
      4,
      ["a", "a", "b", "b"]
    ],
    [
      "maxSessions counts what the batch placed, and so does memory",
      { a: facts(90_000), b: facts(2000) },
      { allowed: ["a", "b"], sessions: new Map([["a", 1]]) },
      3,
      [
        "a",
        "b",
        "none"
      ]
    ],
    ["nothing to place", { a: facts(9000) }, {}, 0, []]
  ]
  for (const [name, entries, request, count, expected] of table) {
    it(name, () => assert.deepStrictEqual(only(placeMany(hosts, readings(entries), { ...base, ...request }, count)), expected))
  }
})
