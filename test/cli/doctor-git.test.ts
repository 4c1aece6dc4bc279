/** `orch doctor`'s git line: a git without `merge-tree --write-tree` (before 2.38) is a warning, for conflict prediction. */
import { assert, describe, it } from "@effect/vitest"
import { gitCheck } from "../../src/cli/doctor-run.ts"

describe("the git check", () => {
  it.each([
    ["git version 2.39.5", "ok"],
    ["git version 2.38.0", "ok"],
    ["git version 3.0.1", "ok"],
    ["git version 2.37.4", "warn"],
    ["git version 1.9.1", "warn"],
    ["git version 2.45.1.windows.1", "ok"]
  ])("%s: %s", (text, level) => assert.strictEqual(gitCheck(text).level, level))

  it("says what needs the newer git", () =>
    assert.strictEqual(
      gitCheck("git version 2.34.1").detail,
      "git version 2.34.1: predicting conflicts between sessions needs git 2.38 or newer (merge-tree --write-tree); install a newer git for it"
    ))
})
