/** Which command lines the views' bundle runs (src/cli/plain-views.ts); every other goes to the command tree. */
import { assert, describe, it } from "@effect/vitest"
import { plainView } from "../../src/cli/plain-views.ts"

describe("plainView", () => {
  it.each<[ReadonlyArray<string>, string | undefined]>([
    [["status"], "status"],
    [["status", "--json"], "status"],
    [["queue", "ls"], "queue ls"],
    [["queue", "ls", "--json"], "queue ls"],
    // Help, misspelt or repeated flags, extra words and other commands are the tree's to answer.
    [["status", "--help"], undefined],
    [["status", "--jsn"], undefined],
    [["status", "--json", "--json"], undefined],
    [["status", "extra"], undefined],
    [["queue"], undefined],
    [["queue", "ls", "--help"], undefined],
    [["queue", "ls", "extra"], undefined],
    [["queue", "--json"], undefined],
    [["queue", "add", "app", "1"], undefined],
    [["session", "ls"], undefined],
    [[], undefined]
  ])("%j → %s", (argv, expected) => assert.strictEqual(plainView(argv), expected))
})
