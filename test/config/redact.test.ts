import { assert, describe, it } from "@effect/vitest"
import { redactText } from "../../src/config/redact.ts"

describe("redactText", () => {
  const rows: ReadonlyArray<[string, string, ReadonlyArray<string>, string]> = [
    ["plain text is left as it is", "Error: the model is overloaded, try again later", [], "Error: the model is overloaded, try again later"],
    ["a value the agent was given, wherever it appears", "invalid key t0ps3cr3t-value (check it)", ["t0ps3cr3t-value"], "invalid key <redacted> (check it)"],
    ["a given value too short to hide safely is left", "exit 1", ["1"], "exit 1"],
    ["a provider key's shape", "401: sk-ant-api03-abcdefghijklmnopqrstuv is invalid", [], "401: <redacted> is invalid"],
    ["a GitHub token's shape", "using ghp_abcdefghijklmnopqrstuvwxyz0123", [], "using <redacted>"],
    ["a bearer credential", "Authorization: Bearer abc.def.ghi-jkl", [], "Authorization: Bearer <redacted>"],
    ["a secret-looking name's value", "ANTHROPIC_API_KEY=abc123 not accepted", [], "ANTHROPIC_API_KEY=<redacted> not accepted"],
    ["quoted, after a colon", `token: "xyz789abc"`, [], `token: "<redacted>"`],
    ["other names' values are kept", "MODEL=opus exit=3", [], "MODEL=opus exit=3"],
    ["a password inside a URL", "cannot reach https://bob:hunter22@git.example.com/repo", [], "cannot reach https://bob:<redacted>@git.example.com/repo"]
  ]
  for (const [name, text, known, expected] of rows) it(name, () => assert.strictEqual(redactText(text, known), expected))
})
