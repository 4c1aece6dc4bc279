/**
 * `orch status` and `orch session ls` list records by project (by locale), then session number, then id. sortRecords
 * ranks the projects once instead of comparing every pair by locale: the order must be the pairwise comparison's.
 */
import { assert, describe, it } from "@effect/vitest"
import { sortRecords } from "../../src/cli/status-run.ts"

type Ids = { readonly projectId: string; readonly sessionId: string }

// The comparison sortRecords replaced, every pair by locale.
const pairwise = (records: ReadonlyArray<Ids>) =>
  [...records].sort((a, b) =>
    a.projectId.localeCompare(b.projectId) ||
    Number(a.sessionId.split("-").at(-1)) - Number(b.sessionId.split("-").at(-1)) ||
    a.sessionId.localeCompare(b.sessionId)
  )

const ids = (projectId: string, ...sessions: ReadonlyArray<string>): Array<Ids> => sessions.map((sessionId) => ({ projectId, sessionId }))

describe("sortRecords", () => {
  it.each<[string, ReadonlyArray<Ids>]>([
    ["one project, numbers past 9", ids("app", "app-10", "app-2", "app-1", "app-100", "app-9")],
    ["projects whose byte order is not their locale order", [
      ...ids("web", "web-2", "web-1"),
      ...ids("Api", "Api-3"),
      ...ids("app", "app-1"),
      ...ids("_tools", "_tools-1"),
      ...ids("zeta", "zeta-1"),
      ...ids("Éclair", "Éclair-1"),
      ...ids("eclair", "eclair-1")
    ]],
    // "é" as one code point and as e + combining accent: the locale finds them equal, so their sessions interleave by number.
    ["one project spelled two ways the locale finds equal", [...ids("caf\u00e9", "caf\u00e9-3", "caf\u00e9-1"), ...ids("cafe\u0301", "cafe\u0301-2")]],
    ["one number under two prefixes, and ids with no number", ids("app", "web-1", "app-1", "orchestrator", "app-x", "app-2", "Orchestrator")]
  ])("%s: the order of comparing every pair", (_name, records) => {
    const expected = pairwise(records)
    assert.deepStrictEqual(sortRecords(records), expected)
    assert.deepStrictEqual(sortRecords([...records].reverse()), pairwise([...records].reverse()))
  })
})
