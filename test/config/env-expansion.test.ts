import { describe, expect, it } from "@effect/vitest"
import { expandEnv } from "../../src/config/env-expansion.ts"

const env = { TOKEN: "s3cret", EMPTY: "", HOST: "example.org" }

describe("expandEnv", () => {
  it.each([
    ["${TOKEN}", "s3cret"],
    ["Bearer ${TOKEN}", "Bearer s3cret"],
    ["https://${HOST}/a/${TOKEN}", "https://example.org/a/s3cret"],
    ["${MISSING:-fallback}", "fallback"],
    ["${EMPTY:-fallback}", "fallback"],
    ["${EMPTY}", ""],
    ["${TOKEN:-unused}", "s3cret"],
    ["$${TOKEN}", "${TOKEN}"],
    ["no references", "no references"],
    ["$TOKEN stays", "$TOKEN stays"]
  ])("%s → %s", (input, output) => {
    const result = expandEnv({ value: input }, env)
    expect(result.issues).toEqual([])
    expect(result.value).toEqual({ value: output })
  })

  it("reports an unset variable at its path and names it", () => {
    const result = expandEnv({ notifiers: { hook: { headers: { Authorization: "Bearer ${API_TOKEN}" } } }, list: ["${NOPE}"] }, env)
    expect(result.issues.map((i) => i.path)).toEqual([["notifiers", "hook", "headers", "Authorization"], ["list", 0]])
    expect(result.issues[0]!.message).toContain("\"API_TOKEN\" is not set")
  })

  it("leaves non-strings alone", () => {
    expect(expandEnv({ port: 3000, on: true, nothing: null }, env).value).toEqual({ port: 3000, on: true, nothing: null })
  })
})
