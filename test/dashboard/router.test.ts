/** The board's address carries its filters (src/dashboard/web/router.ts). */
import { assert, describe, it } from "@effect/vitest"
import { boardPath } from "../../src/dashboard/web/router.ts"

describe("boardPath", () => {
  it("puts the project and host filters in the query, and nothing when there are none", () => {
    const rows: ReadonlyArray<[string | undefined, string | undefined, string]> = [
      [undefined, undefined, "/"],
      ["app", undefined, "/?project=app"],
      [undefined, "b", "/?host=b"],
      ["my app", "gpu box", "/?project=my+app&host=gpu+box"]
    ]
    for (const [project, host, path] of rows) assert.strictEqual(boardPath(project, host), path)
  })
})
