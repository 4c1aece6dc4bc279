/**
 * A session orch stopped watching (its actor crashed too often: docs/supervisor.md, "Actors") as a new user meets it
 * on the default path: the built CLI, a fresh HOME, an empty TMUX_TMPDIR, no ORCH_* variable. A new `orch start`
 * does not watch it again and its log says so; `orch session restore` has orch watch it again while its agent runs
 * on, and the supervisor then sees that agent exit.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { escalationsPath } from "../../src/store/escalations-file.ts"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"

/** An agent that answers each line it is sent, and exits when sent `quit`. */
const QUITTABLE_AGENT = `echo "ready $ORCH_SESSION_ID"; while IFS= read -r line; do [ "$line" = quit ] && exit 0; echo "got: $line"; done`

describe("a session orch stopped watching, on the default path", () => {
  it.live("a new orch start leaves it unwatched and says so; orch session restore has it watched again", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig({ agentConfig: { command: QUITTABLE_AGENT } })
      const inRepo = { cwd: s.repo.path }
      const spawned = yield* s.orch(["spawn", "app", "--task", "Say hello"], inRepo)
      assert.strictEqual(spawned.code, 0, spawned.stderr)
      // What the supervisor that stopped watching app-1 left behind.
      writeFileSync(
        escalationsPath(s.dataDir),
        JSON.stringify({
          escalations: [{
            sessionId: "app-1",
            at: new Date().toISOString(),
            reason: "its actor crashed 6 times within 60 s",
            runtime: s.record("app-1").runtime
          }]
        })
      )
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"], inRepo)
      assert.strictEqual(started.code, 0, started.stderr)
      const log = join(s.dataDir, "supervisor.log")
      yield* eventually(
        "the supervisor's line about app-1",
        () => existsSync(log) && readFileSync(log, "utf8").includes("app-1: orch stopped watching it (its actor crashed too often)"),
        20_000
      )
      assert.include(readFileSync(log, "utf8"), "`orch session restore app-1` has orch watch it again")
      assert.notInclude(s.events().filter((e) => e.type === "session.adopted").map((e) => e.sessionId), "app-1")

      const restored = yield* s.orch(["session", "restore", "app-1"], inRepo)
      assert.deepStrictEqual([restored.code, restored.stdout, restored.stderr], [0, "restored app-1\n", ""])
      assert.deepStrictEqual(JSON.parse(readFileSync(escalationsPath(s.dataDir), "utf8")), { escalations: [] })
      // Watched again: its agent's exit is seen (three probes, 5 s apart).
      assert.strictEqual((yield* s.orch(["send", "app-1", "quit"], inRepo)).code, 0)
      yield* eventually("session.exited of app-1", () => s.events().some((e) => e.type === "session.exited" && e.sessionId === "app-1"), 30_000)
      assert.strictEqual(s.record("app-1").status, "errored")
      assert.strictEqual((yield* s.orch(["stop", "--kill-sessions"], inRepo)).code, 0)
    }), 90_000)
})
