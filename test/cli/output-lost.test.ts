/**
 * Output that cannot be written fails the command with one sentence (src/cli/output-lost.ts), on the built CLI: stdout
 * on /dev/full (every write fails with ENOSPC). A reader that leaves early (`| head`) is no failure.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

const ORCH = resolve("dist/orch.mjs")

describe("output that cannot be written", () => {
  let home: string
  beforeEach(() => void (home = mkdtempSync(join(tmpdir(), "orch-output-lost-"))))
  afterEach(() => rmSync(home, { recursive: true, force: true }))
  const env = () => ({ PATH: process.env.PATH ?? "", HOME: home })

  it.each([["status", "--json"], ["queue", "ls"], ["--help"], ["--version"]])("orch %s %s on a full disk: exit 1, and says so", (...args) => {
    const full = openSync("/dev/full", "w")
    try {
      const result = spawnSync(process.execPath, [ORCH, ...args], { env: env(), stdio: ["ignore", full, "pipe"], encoding: "utf8" })
      expect(result.status).toBe(1)
      expect(result.stderr).toBe(
        "orch: the output could not be written (ENOSPC: no space left on device, write), so what this command printed is incomplete; " +
          "free space where it goes, or send it elsewhere\n"
      )
    } finally {
      closeSync(full)
    }
  })

  it("a reader that leaves first is no failure: `orch --help | true` exits 0 and says nothing more", () => {
    // `true` ends at once, long before orch writes: its writes meet a pipe with no reader (EPIPE).
    const out = execFileSync("bash", ["-c", `"${process.execPath}" "${ORCH}" --help 2>"${home}/err" | true; echo "exit \${PIPESTATUS[0]}"`], {
      env: env(),
      encoding: "utf8"
    })
    expect(out).toBe("exit 0\n")
    expect(readFileSync(join(home, "err"), "utf8")).toBe("")
  })
})
