/** A config the supervisor could not apply, told in one line with where (src/config/problem.ts). */
import { assert, describe, it } from "@effect/vitest"
import { ConfigNotFoundError, ConfigParseError, ConfigValidationError, DuplicateSessionPrefixError } from "../../src/config/errors.ts"
import { configProblem } from "../../src/config/problem.ts"
import { UnknownPlugin } from "../../src/plugins/registry.ts"

const file = "/home/me/orchestrator.yaml"

describe("configProblem", () => {
  it.each([
    {
      name: "a YAML syntax error: the reason, and the line and column",
      error: new ConfigParseError({ file, line: 3, column: 7, reason: "Nested mappings are not allowed in compact mappings" }),
      expected: { problem: "YAML syntax error: Nested mappings are not allowed in compact mappings", location: `${file}:3:7` }
    },
    {
      name: "one validation issue, where the loader found it",
      error: new ConfigValidationError({ issues: [{ path: "projects.web.repo", message: "Required", location: `${file}:5:3` }] }),
      expected: { problem: "Validation error at \"projects.web.repo\": Required", location: `${file}:5:3` }
    },
    {
      name: "several: the first, and how many more",
      error: new ConfigValidationError({
        issues: [{ path: "port", message: "Expected a port number between 1 and 65535" }, { path: "projects.web.path", message: "Required" }]
      }),
      expected: { problem: "Validation error at \"port\": Expected a port number between 1 and 65535 (and 1 more)" }
    },
    {
      name: "the file deleted",
      error: new ConfigNotFoundError({ searched: [file] }),
      expected: { problem: "the file is gone (deleted or moved)" }
    },
    {
      name: "a cross-field rule",
      error: new DuplicateSessionPrefixError({ prefix: "app", keys: ["app", "app2"] }),
      expected: { problem: new DuplicateSessionPrefixError({ prefix: "app", keys: ["app", "app2"] }).message }
    },
    {
      name: "a plugin setting (as orch config validate checks them): where it is written",
      error: new ConfigValidationError({
        issues: [
          { path: "projects.web.tracker.teamId", message: "required: the Linear team's key (e.g. ENG) or id", location: `${file}:7:5` },
          { path: "projects.web.tracker.apiKey", message: "required: a Linear API key", location: `${file}:7:5` }
        ]
      }),
      expected: {
        problem: "Validation error at \"projects.web.tracker.teamId\": required: the Linear team's key (e.g. ENG) or id (and 1 more)",
        location: `${file}:7:5`
      }
    },
    {
      name: "a plugin that cannot be made",
      error: new UnknownPlugin({ project: "web", slot: "agent", name: "comand", modules: [] }),
      expected: {
        problem:
          "project \"web\": Unknown agent plugin \"comand\" (did you mean \"command\"?): the built-in ones are coding-agent, codex, aider and command; another one is a plugin module, named under `plugins`"
      }
    }
  ])("$name", ({ error, expected }) => {
    const { problem, location } = configProblem(error)
    assert.deepStrictEqual({ problem, ...(location !== undefined ? { location } : {}) }, expected)
    assert.notInclude(problem, "\n")
    assert.isAbove(configProblem(error).problems.length, 0)
  })
})
