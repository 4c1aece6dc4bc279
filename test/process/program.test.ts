import { assert, describe, it } from "@effect/vitest"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findProgram, programOf } from "../../src/process/program.ts"

describe("programOf", () => {
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    ["claude", "claude"],
    ["claude --permission-mode default", "claude"],
    ["/opt/bin/codex --no-daemon", "/opt/bin/codex"],
    ["FOO=1 BAR=2 aider --yes", "aider"],
    ["exec my-agent", "my-agent"],
    ["env LANG=C node agent.js", "node"],
    ["echo ready; cat", undefined],
    ["while read l; do :; done", undefined],
    ["$HOME/bin/agent", undefined],
    ["'my agent' --x", undefined],
    ["~/bin/agent", undefined],
    ["(cd x && run)", undefined],
    ["", undefined]
  ]
  for (const [line, expected] of cases) {
    it(`${JSON.stringify(line)} → ${expected ?? "nothing to look up"}`, () => assert.strictEqual(programOf(line), expected))
  }
})

describe("findProgram", () => {
  it("finds a name on PATH, a path as it is, and says why a program is missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "orch-program-"))
    try {
      const tool = join(dir, "tool")
      writeFileSync(tool, "#!/bin/sh\n")
      chmodSync(tool, 0o755)
      const plain = join(dir, "plain")
      writeFileSync(plain, "not executable")
      chmodSync(plain, 0o644)
      assert.deepStrictEqual(findProgram("tool", `/nonexistent:${dir}`), { _tag: "Found", path: tool })
      assert.deepStrictEqual(findProgram(tool, ""), { _tag: "Found", path: tool })
      assert.deepStrictEqual(findProgram("tool", "/nonexistent"), { _tag: "Missing", program: "tool", reason: "not found on PATH" })
      assert.deepStrictEqual(findProgram(plain, ""), { _tag: "Missing", program: plain, reason: "no executable file there" })
      assert.deepStrictEqual(findProgram(dir, ""), { _tag: "Missing", program: dir, reason: "no executable file there" })
      assert.deepStrictEqual(findProgram("./relative/tool", ""), { _tag: "Unknown" })
      assert.deepStrictEqual(findProgram(undefined, dir), { _tag: "Unknown" })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
