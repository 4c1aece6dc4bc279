/** `orch demo --headless`, end to end: the whole scenario with the real supervisor, tmux, git and the emulator. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readdirSync } from "node:fs"
import { runOrchAsync } from "../support/cli.ts"
import { tempDir } from "../support/host.ts"

describe("orch demo", () => {
  it.live("--headless plays issue → PR → CI failure → fix → review → auto-merge → cleanup, and exits 0", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir("orch-demo-test-")
      const run = yield* runOrchAsync(["demo", "--headless", "--timeout", "90"], { env: { HOME: tmp, TMPDIR: tmp } })
      assert.strictEqual(run.code, 0, `${run.stdout}\n${run.stderr}`)
      const summary = run.stdout.slice(run.stdout.indexOf("summary"))
      assert.notInclude(summary, "✗")
      assert.strictEqual(summary.match(/✓/g)?.length, 12)
      for (
        const line of ["CI failed", "reaction ci-failed → send-to-agent", "changes requested", "merged: PR #4", "cleaned up", "inbox: all sessions complete"]
      ) {
        assert.include(run.stdout, line)
      }
      assert.notInclude(run.stdout, "\u001b[", "no colours when the output is not a terminal")
      assert.match(run.stdout, /dashboard http:\/\/127\.0\.0\.1:\d+\/\?token=/)
      assert.deepStrictEqual(readdirSync(tmp).filter((name) => name.startsWith("orch-demo-")), [], "the sandbox is removed")
    }), 120_000)
})
