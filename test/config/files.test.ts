import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { renderConfigJsonSchema } from "../../src/config/json-schema.ts"
import { loadConfig } from "../../src/config/load.ts"
import { REACTION_KEYS } from "../../src/config/schema.ts"
import { withHost } from "../support/host.ts"

describe("checked-in files", () => {
  it("schema/orchestrator.schema.json is up to date (regenerate: npm run schema)", () => {
    assert.strictEqual(readFileSync("schema/orchestrator.schema.json", "utf8"), renderConfigJsonSchema())
  })

  it.effect("orchestrator.example.yaml validates and shows every option", () =>
    Effect.gen(function*() {
      const config = yield* loadConfig("orchestrator.example.yaml").pipe(withHost({ cwd: process.cwd(), homeDir: "/home/u" }))
      const text = readFileSync("orchestrator.example.yaml", "utf8")
      const documented = (key: string) => assert.match(text, new RegExp(`^\\s*#?\\s*${key}:`, "m"), `${key} is not documented`)
      for (
        const key of [
          "host",
          "port",
          "terminalPort",
          "directTerminalPort",
          "readyThresholdMs",
          "pollIntervalMs",
          "defaults",
          "projects",
          "notifiers",
          "notificationRouting",
          "reactions"
        ]
      ) documented(key)
      for (const key of ["runtime", "agent", "workspace", "notifiers"]) documented(key)
      for (
        const key of [
          "repo",
          "path",
          "name",
          "defaultBranch",
          "sessionPrefix",
          "tracker",
          "scm",
          "symlinks",
          "postCreate",
          "agentConfig",
          "permissions",
          "model",
          "quietMs",
          "agentRules",
          "agentRulesFile",
          "orchestratorRules"
        ]
      ) documented(key)
      for (const key of ["auto", "action", "message", "priority", "retries", "escalateAfter", "threshold", "includeSummary"]) assert.include(text, key)
      for (const key of REACTION_KEYS) documented(key)
      assert.isAbove(Object.keys(config.projects).length, 0)
    }))
})
