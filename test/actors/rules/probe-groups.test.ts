import { assert, describe, it } from "@effect/vitest"
import { probeGroups } from "../../../actors/rules/probe-groups.ts"

const r = (sessionId: string, projectId: string, host?: string) => ({ sessionId, projectId, ...(host !== undefined ? { host } : {}) })
const ids = (groups: ReadonlyMap<string, ReadonlyArray<{ sessionId: string }>>) => [...groups].map(([key, rs]) => [key, rs.map((x) => x.sessionId)])

describe("probe groups (pure)", () => {
  it.each(
    [
      ["none", [], [], []],
      ["local sessions by project", [r("a-1", "a"), r("b-1", "b"), r("a-2", "a")], [["a", ["a-1", "a-2"]], ["b", ["b-1"]]], []],
      ["a host's sessions of three projects: one group", [r("a-1", "a", "h"), r("b-1", "b", "h"), r("c-1", "c", "h")], [], [["h", ["a-1", "b-1", "c-1"]]]],
      ["two hosts and local", [r("a-1", "a", "h"), r("a-2", "a"), r("b-1", "b", "g"), r("b-2", "b", "h"), r("a-3", "a", "local")], [["a", [
        "a-2",
        "a-3"
      ]]], [["h", ["a-1", "b-2"]], ["g", ["b-1"]]]]
    ] as const
  )("%s", (_name, records, local, remote) => {
    const groups = probeGroups(records)
    assert.deepStrictEqual<unknown>(ids(groups.local), local)
    assert.deepStrictEqual<unknown>(ids(groups.remote), remote)
  })
})
