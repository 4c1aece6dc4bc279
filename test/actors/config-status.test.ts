/** The lines `orch status` prints about the supervisor's config file (actors/config-status.ts). */
import { assert, describe, it } from "@effect/vitest"
import { configNotes } from "../../actors/config-status.ts"
import type { ConfigState } from "../../src/store/config-state.ts"

const base: ConfigState = { pid: 1, file: "/home/me/code/orchestrator.yaml", appliedAt: "2026-05-01T11:00:00.000Z" }

describe("configNotes", () => {
  it.each<{ name: string; state: ConfigState; lines: ReadonlyArray<string> }>([
    { name: "applied, nothing waiting: no line", state: base, lines: [] },
    {
      name: "an edit that was not applied",
      state: {
        ...base,
        rejected: {
          since: "2026-05-01T12:03:10.000Z",
          problem: "Validation error at \"projects.web.repo\": Required",
          location: "/home/me/code/orchestrator.yaml:5:3"
        }
      },
      lines: [
        "config: ~/code/orchestrator.yaml has an error since 12:03 UTC and was not applied: Validation error at \"projects.web.repo\": Required (~/code/orchestrator.yaml:5:3)"
      ]
    },
    {
      name: "settings waiting for a restart",
      state: { ...base, restartNeeded: { since: "2026-05-01T12:05:00.000Z", settings: ["port", "terminalPort"] } },
      lines: [
        "config: port, terminalPort changed in ~/code/orchestrator.yaml at 12:05 UTC; the supervisor applies them when restarted (orch stop, then orch start)"
      ]
    },
    {
      name: "a file outside the home directory, not watched",
      state: { ...base, file: "/etc/orch/orchestrator.yaml", unwatched: { since: "2026-05-01T12:07:00.000Z", reason: "ENOENT" } },
      lines: ["config: /etc/orch/orchestrator.yaml is not watched since 12:07 UTC (ENOENT); edits to it are not seen"]
    }
  ])("$name", ({ state, lines }) => {
    assert.deepStrictEqual(configNotes(state, "/home/me"), lines)
  })
})
