/** "did you mean" for a misspelt key or name (src/config/suggest.ts). */
import { assert, describe, it } from "@effect/vitest"
import { didYouMean } from "../../src/config/suggest.ts"

const TOP_LEVEL = [
  "host",
  "port",
  "terminalPort",
  "directTerminalPort",
  "readyThresholdMs",
  "pollIntervalMs",
  "maxSessions",
  "defaults",
  "projects",
  "hosts",
  "notifiers",
  "plugins",
  "notificationRouting",
  "reactions"
]

describe("the suggestion for a misspelt top-level key", () => {
  it.each<[string, string]>([
    ["prot", ` (did you mean "port"?)`],
    ["projets", ` (did you mean "projects"?)`],
    ["defualts", ` (did you mean "defaults"?)`],
    ["prots", ` (did you mean "port" or "projects"?)`],
    ["projs", ` (did you mean "projects"?)`],
    ["porjects", ` (did you mean "projects"?)`],
    ["reacts", ` (did you mean "reactions"?)`],
    ["maxSession", ` (did you mean "maxSessions"?)`],
    ["ports", ` (did you mean "port"?)`],
    ["banana", ""],
    ["x", ""],
    ["qqq", ""],
    ["pots", ` (did you mean "host" or "port"?)`]
  ])("%s →%s", (word, expected) => {
    assert.strictEqual(didYouMean(word, TOP_LEVEL), expected)
  })
})

describe("the suggestion among other names", () => {
  it.each<[string, ReadonlyArray<string>, string]>([
    ["retry", ["retries", "message"], ` (did you mean "retries"?)`],
    ["slakc", ["slack", "desktop"], ` (did you mean "slack"?)`],
    ["Slack", ["slack"], ` (did you mean "slack"?)`],
    ["zzzz", ["slack", "desktop"], ""]
  ])("%s among %j →%s", (word, candidates, expected) => {
    assert.strictEqual(didYouMean(word, candidates), expected)
  })
})
