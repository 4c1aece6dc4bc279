import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, statSync, utimesSync } from "node:fs"
import { launchLine, removeEnvFile, removeLeftEnvFiles, removeStaleEnvFiles, writeEnvFile } from "../../../src/plugins/runtime/launch-env.ts"
import { shellQuote } from "../../../src/process/shell-quote.ts"

const HARD = [
  "",
  "plain",
  "it's",
  "'''",
  `"double" and \\backslash\\`,
  "$HOME ${PATH} $(id) `id`",
  "line one\nline two\n",
  "ünïcødé ✓ 🚀 日本語",
  "trailing space ",
  "-n",
  "a=b; rm -rf /tmp/nope; echo gotcha",
  "\t\r\u0001"
]

describe("the agent's environment file", () => {
  it.each(HARD)("a value /bin/sh reads back exactly: %j", (value) => {
    assert.strictEqual(execFileSync("/bin/sh", ["-c", `printf '%s' ${shellQuote(value)}`], { encoding: "utf8" }), value)
  })

  it("is private while it exists, read by the launch line, and gone before the command runs", () => {
    const env = Object.fromEntries(HARD.map((value, i) => [`V${i}`, value]))
    const envFile = writeEnvFile({ ...env, "BASH_FUNC_f%%": "() { :; }", ORCH_DROP: "gone" }, "app-1", "/h/.orchestrator/worktrees/app/app-1")
    try {
      assert.deepStrictEqual(envFile.skipped, ["BASH_FUNC_f%%"])
      assert.strictEqual(statSync(envFile.dir).mode & 0o777, 0o700)
      assert.strictEqual(statSync(envFile.file).mode & 0o777, 0o600)
      // The command reports each value (NUL-separated), whether the file still exists, and what was unset.
      const command = `for v in ${HARD.map((_, i) => `"$V${i}"`).join(" ")}; do printf '%s\\0' "$v"; done; ` +
        `[ -e ${shellQuote(envFile.dir)} ] && printf 'still there'; printf '%s' "\${ORCH_DROP-unset}"`
      const out = execFileSync("/bin/sh", ["-c", launchLine(envFile, ["ORCH_DROP"], command)], { encoding: "utf8", env: { PATH: process.env.PATH } })
      const parts = out.split("\0")
      assert.deepStrictEqual(parts.slice(0, HARD.length), HARD)
      assert.strictEqual(parts.at(-1), "unset")
      assert.isFalse(existsSync(envFile.dir))
    } finally {
      removeEnvFile(envFile)
    }
  })

  it("one a spawn killed before its shell read it is found by its session and removed (the undo does it)", () => {
    const left = writeEnvFile({ KEY: "secret" }, "app-77", "/h/.orchestrator/worktrees/app/app-77")
    const other = writeEnvFile({ KEY: "secret" }, "app-7", "/h/.orchestrator/worktrees/app/app-7")
    // Another data dir's session of the same id (two HOMEs, one TMPDIR): never its files.
    const elsewhere = writeEnvFile({ KEY: "secret" }, "app-7", "/other/.orchestrator/worktrees/app/app-7")
    try {
      removeLeftEnvFiles("app-7", "/h/.orchestrator/worktrees/app/app-7")
      assert.isTrue(existsSync(left.file), "another session's file stays")
      assert.isTrue(existsSync(elsewhere.file), "another data dir's session of the same id keeps its file")
      assert.isFalse(existsSync(other.dir))
      removeLeftEnvFiles("app-77", "/h/.orchestrator/worktrees/app/app-77")
      assert.isFalse(existsSync(left.dir))
    } finally {
      removeEnvFile(left)
      removeEnvFile(other)
      removeEnvFile(elsewhere)
    }
  })

  it("one never read for a minute is stale (its start was killed) and the sweep removes it; a fresh one stays", () => {
    const stale = writeEnvFile({ KEY: "secret" }, "app-5", "/h/w/app-5")
    const fresh = writeEnvFile({ KEY: "secret" }, "app-6", "/h/w/app-6")
    try {
      const minuteAgo = (Date.now() - 61_000) / 1000
      utimesSync(stale.dir, minuteAgo, minuteAgo)
      assert.isAtLeast(removeStaleEnvFiles(60_000, Date.now()), 1)
      assert.isFalse(existsSync(stale.dir))
      assert.isTrue(existsSync(fresh.file))
    } finally {
      removeEnvFile(stale)
      removeEnvFile(fresh)
    }
  })
})
