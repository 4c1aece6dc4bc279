import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { budgetPart, repohostBudget } from "../../src/cli/status-run.ts"
import { tempDir } from "../support/host.ts"

const reset = Date.UTC(2026, 10, 21, 21, 45) / 1000
const now = Date.UTC(2026, 10, 21, 21, 0)

describe("orch status: the repohost budget line", () => {
  it.each([
    [{ limit: 5000, remaining: 4987, reset }, "app 4987/5000 requests left, resets 21:45 UTC"],
    [{ limit: 5000, remaining: 120, reset, resource: "graphql" }, "app 120/5000 GraphQL points left, resets 21:45 UTC"],
    [{ limit: 5000, remaining: 0, reset, blockedUntil: reset * 1000 }, "app 0/5000 requests left, resets 21:45 UTC; paused until 21:45 UTC (the host asked)"],
    [{ limit: 0, remaining: 0, reset: 0, blockedUntil: now + 60_000 }, "app no budget seen yet; paused until 21:01 UTC (the host asked)"],
    [{ limit: 5000, remaining: 10, reset, blockedUntil: now - 1 }, "app 10/5000 requests left, resets 21:45 UTC"]
  ])("%j → %s", (budget, line) => {
    expect(budgetPart("app", budget, now)).toBe(line)
  })

  it.effect("reads repohost.json through its Schema: nothing without the file, a warning naming the field when it is malformed", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      expect(repohostBudget(root, now)).toEqual({})
      const file = join(root, "repohost.json")
      writeFileSync(file, JSON.stringify({ checkedAt: "x", budgets: { app: { limit: 5000, remaining: 4987, reset } } }))
      expect(repohostBudget(root, now)).toEqual({ line: "repohost budget: app 4987/5000 requests left, resets 21:45 UTC" })
      writeFileSync(file, JSON.stringify({ checkedAt: "x", budgets: { app: { limit: 5000, reset } } }))
      const { line, warning } = repohostBudget(root, now)
      expect(line).toBeUndefined()
      expect(warning).toMatch(/repohost\.json cannot be read: .*remaining/)
      expect(warning).not.toContain("\n")
    }).pipe(Effect.scoped))
})
