/**
 * What a command says of a supervisor that holds its socket but does not answer (src/ipc/raw-ping.ts), and how a
 * paused one is told apart (src/store/process-liveness.ts), on a real process stopped with SIGSTOP.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { unresponsiveMessage } from "../../src/ipc/raw-ping.ts"
import { isProcessPaused } from "../../src/store/process-liveness.ts"

describe("a supervisor that does not answer", () => {
  it("is told what to do: wait or stop it; a paused one, that kill waits for it to go on", () => {
    assert.strictEqual(
      unresponsiveMessage(42, "/d/orch.sock", "it did not answer within 2s"),
      "the supervisor (pid 42) holds /d/orch.sock but it did not answer within 2s; try again in a moment, or stop it with `kill 42` and run `orch start` again"
    )
    assert.strictEqual(
      unresponsiveMessage(undefined, "/d/orch.sock", "it did not answer within 2s", true),
      "a process holds /d/orch.sock but it did not answer within 2s; try again in a moment, or remove /d/orch.sock and run `orch start` again"
    )
    assert.strictEqual(
      unresponsiveMessage(42, "/d/orch.sock", "it did not answer within 2s", true),
      "the supervisor (pid 42) is paused (stopped by Ctrl-Z or `kill -STOP`), so it holds /d/orch.sock but it did not answer within 2s; " +
        "`kill -CONT 42` lets it go on, or `kill -9 42` and `orch start` replace it"
    )
  })

  it("a process stopped by a signal is paused; going on, it is not", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" })
    try {
      const pid = child.pid!
      assert.isFalse(isProcessPaused(pid))
      process.kill(pid, "SIGSTOP")
      // The kernel stops it as the signal is delivered: its state is looked at until it says so (1 s at most).
      for (let i = 0; i < 100 && !isProcessPaused(pid); i++) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.isTrue(isProcessPaused(pid))
      process.kill(pid, "SIGCONT")
      for (let i = 0; i < 100 && isProcessPaused(pid); i++) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.isFalse(isProcessPaused(pid))
      assert.isFalse(isProcessPaused(undefined))
    } finally {
      child.kill("SIGKILL")
    }
  })
})
