import { describe, expect, it } from "@effect/vitest"
import { generateSessionPrefix } from "../../src/config/session-prefix.ts"

describe("generateSessionPrefix", () => {
  it.each([
    ["app", "app"],
    ["API", "api"],
    ["Tool", "tool"],
    ["PyTorch", "pt"],
    ["MyBigApp", "mba"],
    ["agent-orchestrator", "ao"],
    ["snake_case_repo", "scr"],
    ["mixed-with_both", "mw"],
    ["integrator", "int"],
    ["Backend", "bac"],
    ["ab--cd", "ac"],
    ["a-b", "a-b"]
  ])("%s → %s", (name, prefix) => {
    expect(generateSessionPrefix(name)).toBe(prefix)
  })
})
