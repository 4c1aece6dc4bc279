/** The hint an empty session list or queue prints, by the projects' trackers (src/cli/empty-hints.ts). */
import { assert, describe, it } from "@effect/vitest"
import { emptyQueueHint, noSessionsHint, type ProjectTrackers } from "../../src/cli/empty-hints.ts"

describe("the hint for an empty list", () => {
  it.each<[string, ProjectTrackers, string, string]>([
    ["no usable config", undefined, "`orch spawn <project> <issue>`", "`orch queue add <project> <issue>...`"],
    ["one project with a tracker", [{ key: "app", tracked: true }], "`orch spawn app <issue>`", "`orch queue add app <issue>...`"],
    [
      "one project with tracker: none",
      [{ key: "lib", tracked: false }],
      "`orch spawn lib --task \"<what to do>\"`",
      "`orch queue add lib --task \"<what to do>\"`"
    ],
    [
      "no project has a tracker",
      [{ key: "a", tracked: false }, { key: "b", tracked: false }],
      "`orch spawn <project> --task \"<what to do>\"`",
      "`orch queue add <project> --task \"<what to do>\"`"
    ],
    [
      "some have one",
      [{ key: "a", tracked: true }, { key: "b", tracked: false }],
      "`orch spawn <project> <issue>` (`--task \"<what to do>\"` for a project with no tracker)",
      "`orch queue add <project> <issue>...` (`--task \"<what to do>\"` for a project with no tracker)"
    ]
  ])("%s", (_, projects, spawn, queue) => {
    assert.strictEqual(noSessionsHint(projects), `No sessions. Start one with ${spawn}.`)
    assert.strictEqual(emptyQueueHint(projects), `The queue is empty. Add to it with ${queue}.`)
  })
})
