/**
 * `orch doctor` on the real machine: git, tmux, the config, the installed Claude Code (version and the drift
 * canary: its real screens and hooks read by orch's detector), a test notification; and what it says when an
 * agent no longer looks like the one orch knows.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { onPath } from "../../src/plugins/notifier/desktop.ts"
import { sandbox } from "../support/orch-sandbox.ts"
import { CLAUDE_BIN, CLAUDE_VERSION } from "./claude-env.ts"
import { CODEX_BIN, CODEX_VERSION } from "./codex-env.ts"

describe("orch doctor", () => {
  it.live("checks the tools, the config, the installed Claude Code with the canary, and notifies", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { agent: "coding-agent", agentConfig: { command: CLAUDE_BIN, env: { IS_SANDBOX: "1" } } } })
      const run = yield* s.orch(["doctor", "--notify"])
      assert.strictEqual(run.code, 0, run.stdout + run.stderr)
      const lines = run.stdout.trim().split("\n")
      assert.match(lines[1]!, /^ok {4}git: git version \d/)
      assert.match(lines[2]!, /^ok {4}tmux: tmux \d/)
      assert.include(run.stdout, `ok    config: ${s.config}: 1 project`)
      assert.include(run.stdout, `ok    agent coding-agent (${CLAUDE_BIN}): ${CLAUDE_VERSION} (Claude Code)`)
      for (
        const check of [
          "ready screen: recognised as ready",
          "message delivery: typed and submitted",
          "busy screen: recognised as active",
          "permission prompt: recognised as waiting_input",
          "hooks: fired: SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest"
        ]
      ) {
        assert.include(run.stdout, `ok    canary ${CLAUDE_BIN}: ${check}`)
      }
      assert.include(run.stdout, "ok    notify hosted: delivered")
      // The zero-config routing names the desktop too; where it cannot show anything, doctor says so and where its
      // notifications go instead, once.
      const warnings = run.stdout.split("\n").filter((line) => line.startsWith("warn"))
      assert.deepStrictEqual(
        warnings,
        onPath("notify-send")
          ? []
          : [
            "warn  notify desktop: notify-send was not found on PATH; install libnotify-bin (or libnotify), or take this notifier out of notificationRouting; its notifications go to hosted"
          ]
      )
    }), 90_000)

  it.live("warns when the agent drifted (another version, screens it cannot read); fails without a config", () =>
    Effect.gen(function*() {
      const s = yield* sandbox()
      const fake = join(s.root, "claude")
      writeFileSync(fake, `#!/bin/sh\nif [ "$1" = --version ]; then echo "9.9.9 (Claude Code)"; exit 0; fi\necho "Welcome to a new UI"; sleep 1\n`)
      chmodSync(fake, 0o755)
      s.writeConfig({ agent: "coding-agent", agentConfig: { command: fake, permissions: "skip" } })
      const run = yield* s.orch(["doctor"])
      assert.strictEqual(run.code, 0, "warnings do not fail")
      assert.include(run.stdout, `warn  agent coding-agent (${fake}): 9.9.9 (Claude Code); orch's screen reading was verified with ${CLAUDE_VERSION}`)
      assert.match(run.stdout, /warn {2}canary .*claude: ready screen: the agent exited: .*; orch may misread this agent's state/, run.stdout)
      if (process.getuid?.() === 0) {
        assert.include(run.stdout, "warn  project app: running as root, Claude Code refuses --dangerously-skip-permissions unless IS_SANDBOX=1")
      }
      assert.notMatch((yield* s.orch(["doctor", "--no-canary"])).stdout, /^\w+ +canary /m)

      const missing = yield* s.orch(["doctor"], { ORCH_CONFIG_PATH: join(s.root, "nope.yaml") })
      assert.strictEqual(missing.code, 1)
      assert.match(missing.stdout, /^fail {2}config: /m)
      assert.strictEqual(missing.stderr, "orch: 1 check failed\n")
    }), 60_000)

  it.live("reports the installed Codex and its version, and warns on another version (Codex has no canary)", () =>
    Effect.gen(function*() {
      const s = yield* sandbox({ project: { agent: "codex", agentConfig: { command: CODEX_BIN } } })
      const run = yield* s.orch(["doctor"])
      assert.strictEqual(run.code, 0, run.stdout + run.stderr)
      assert.include(run.stdout, `ok    agent codex (${CODEX_BIN}): codex-cli ${CODEX_VERSION}\n`)
      assert.notMatch(run.stdout, /^\w+ +canary /m)
      const fake = join(s.root, "codex")
      writeFileSync(fake, `#!/bin/sh\necho "codex-cli 0.170.1"\n`)
      chmodSync(fake, 0o755)
      s.writeConfig({ agent: "codex", agentConfig: { command: fake } })
      assert.include(
        (yield* s.orch(["doctor"])).stdout,
        `warn  agent codex (${fake}): codex-cli 0.170.1; orch's screen reading was verified with ${CODEX_VERSION}\n`
      )
    }), 30_000)
})
