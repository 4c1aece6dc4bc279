/**
 * Conflict prediction as a new user meets it, on the default path: the built CLI, a fresh HOME, an empty TMUX_TMPDIR,
 * no ORCH_* variable. Two `command`-agent sessions commit conflicting changes to README.md in their worktrees; the
 * supervisor predicts the conflict, tells the later session, and `orch status` shows the pair, also once the
 * supervisor has stopped.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventually } from "../support/eventually.ts"
import { userSandbox } from "../support/user-sandbox.ts"

/** An agent that commits its own README.md at once, then echoes what it is sent. */
const COMMITTING_AGENT = `printf '# %s\\n' "$ORCH_SESSION_ID" > README.md && git add README.md && git commit -qm "$ORCH_SESSION_ID: README" && ` +
  `echo "committed $ORCH_SESSION_ID"; while IFS= read -r line; do echo "got: $line"; done`

describe("conflict prediction on the default path", () => {
  it.live("two sessions commit conflicting changes: orch status shows the pair, the later session is told", () =>
    Effect.gen(function*() {
      const s = yield* userSandbox
      s.writeRepoConfig({ agentConfig: { command: COMMITTING_AGENT } })
      const inRepo = { cwd: s.repo.path }
      for (const task of ["one", "two"]) {
        const spawned = yield* s.orch(["spawn", "app", "--task", task], inRepo)
        assert.strictEqual(spawned.code, 0, spawned.stderr)
      }
      for (const id of ["app-1", "app-2"]) {
        yield* eventually(`${id}'s commit`, () => s.tmux("capture-pane", "-p", "-t", `=${id}:`).includes(`committed ${id}`), 20_000)
      }
      const started = yield* s.orch(["start", "app", "--detach", "--no-open"], inRepo)
      assert.strictEqual(started.code, 0, started.stderr)

      const line = "conflict predicted: app-1 ↔ app-2 in README.md"
      yield* eventually("the conflict to be predicted", () => s.events().some((e) => e.type === "session.conflict_predicted"), 30_000)
      const status = yield* s.orch(["status"], inRepo)
      assert.strictEqual(status.code, 0, status.stderr)
      assert.include(status.stdout, line)
      const json = JSON.parse((yield* s.orch(["status", "--json"], inRepo)).stdout) as Array<{ sessionId: string; conflicts?: unknown }>
      // `orch start` started the project's orchestrator session too: it has no branch of its own to compare.
      assert.deepStrictEqual(json.map((r) => [r.sessionId, r.conflicts]).filter(([id]) => id !== "app-orchestrator"), [
        ["app-1", [{ with: "app-2", kind: "conflict", files: ["README.md"] }]],
        ["app-2", [{ with: "app-1", kind: "conflict", files: ["README.md"] }]]
      ])
      // Neither has a PR: app-2, made later, would merge later and is told whom it collides with.
      yield* eventually("app-2 to be told", () => s.tmux("capture-pane", "-p", "-J", "-S", "-50", "-t", "=app-2:").includes("Collides with: app-1"), 20_000)
      assert.notInclude(s.tmux("capture-pane", "-p", "-J", "-S", "-50", "-t", "=app-1:"), "Collides with")

      // Without a supervisor, orch status shows what was last predicted.
      const stopped = yield* s.orch(["stop"], inRepo)
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      assert.include((yield* s.orch(["status"], inRepo)).stdout, line)
    }))
})
