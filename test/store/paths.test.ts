/** A session's paths are what `join` makes of them, whether its names are plain (joined by hand, for speed) or not. */
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { storePaths } from "../../src/store/paths.ts"

describe("store paths", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["/home/u/.orchestrator", "app", "app-1"],
    ["/home/u/.orchestrator/", "app", "app-12"],
    ["/data//orch", "my.app", "my.app-3"],
    ["/data/orch", "..", "app-1"],
    ["/data/orch", "app", "../../etc"],
    ["/data/orch", "a/b", "app-1"],
    ["/data/orch", "", "app-1"],
    ["relative/orch", ".", "x"]
  ]
  for (const [root, project, session] of cases) {
    it(`${root} ${JSON.stringify(project)} ${JSON.stringify(session)}`, () => {
      const paths = storePaths(root)
      const expected = join(root, "sessions", project, session)
      assert.strictEqual(paths.session(project, session), expected)
      assert.strictEqual(paths.record(project, session), join(expected, "session.json"))
      assert.strictEqual(paths.activity(project, session), join(expected, "activity.jsonl"))
      assert.strictEqual(paths.prompt(project, session), join(expected, "prompt.md"))
      assert.strictEqual(paths.systemPrompt(project, session), join(expected, "system-prompt.md"))
    })
  }
})
